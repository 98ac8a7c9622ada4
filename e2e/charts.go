package e2e

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
)

// The stand-in charts. The bootstrap's Ansible roles install the
// argo-cd, argo-workflows, argo-events, sealed-secrets and argocd-apps
// charts from their upstream repositories, which cannot be reached from
// CI. So the environment generates charts of the same names, versions and
// appVersions (read from the generated group_vars, as the roles read
// them) and serves them under the very repository URLs the roles name, on
// the simulated network. The real Helm CLI renders and installs them; the
// roles, the values and the Helm releases are real.
//
// A stand-in reproduces what its upstream chart writes that matters to
// platc: Argo CD's ConfigMaps and Secret from configs.cm, configs.rbac
// and configs.params (toYaml'd as the chart does, so a value that is not
// a string breaks the install as it would upstream), the workflow
// controller's ConfigMap, arguments and environment from controller.*,
// the CRDs (from the components' module sources, in the chart's crds/
// directory, which Helm installs first and never deletes: what crds.keep
// asks of the upstream charts), ServiceAccounts and RBAC, Services, and
// the workloads with the upstream labels (app.kubernetes.io/instance is
// the release, which the roles wait on), and Redis's password as the
// argo-cd chart makes it (a pre-install hook Job running argocd admin
// redis-initial-password, the argocd-redis Secret every component reads).
// argocd-apps renders the AppProjects and Applications of its values as
// the upstream templates do, fields printed unquoted where upstream
// prints them unquoted.
//
// What the stand-ins leave out: the upstream defaults platc does not set
// (the chart's own configs.cm entries, say), Dex, notifications, the
// ApplicationSet controller, the Argo Workflows server,
// PodDisruptionBudgets, NetworkPolicies.
//
// The pods whose containers are real processes here (Argo CD's server,
// repo-server, application controller and Redis, the workflow
// controller) carry the upstream labels app.kubernetes.io/part-of and
// app.kubernetes.io/component, by which the process kubelet (kubelet.go)
// knows them, stand-in or upstream alike: kwok leaves them Pending until
// it has started that process and released them. Argo Events' controller and
// Sealed Secrets' controller have no process here; kwok runs their pods.

// standInChart is one chart the bootstrap installs, as the generated
// group_vars name it.
type standInChart struct {
	prefix     string // group_vars prefix: argocd, argo_workflows, ...
	name       string // chart name
	repoURL    string
	version    string
	appVersion string
	files      map[string][]byte
}

// bootstrapVars is what the stand-in charts need from the generated
// group_vars.
type bootstrapVars map[string]any

func (v bootstrapVars) str(key string) string {
	s, _ := v[key].(string)
	return s
}

// standInCharts builds the stand-ins for every chart the generated
// group_vars name, from the components' module sources under src.
func standInCharts(groupVars []byte, src string) ([]standInChart, error) {
	var v bootstrapVars
	if err := yaml.Unmarshal(unsafeTags(groupVars), &v); err != nil {
		return nil, fmt.Errorf("group_vars: %w", err)
	}
	argoCDCRDs, err := crdFiles(filepath.Join(src, "argo-cd", "manifests", "crds", "*-crd.yaml"))
	if err != nil {
		return nil, err
	}
	wfCRDs, err := crdFiles(filepath.Join(src, "argo-workflows", "manifests", "base", "crds", "minimal", "argoproj.io_*.yaml"))
	if err != nil {
		return nil, err
	}
	evCRDs, err := crdFiles(filepath.Join(src, "argo-events", "manifests", "base", "crds", "argoproj.io_*.yaml"))
	if err != nil {
		return nil, err
	}
	sealed, err := yaml.Marshal(crd(ir.CustomResource{Group: "bitnami.com", Kind: "SealedSecret"}))
	if err != nil {
		return nil, err
	}
	specs := []struct {
		prefix, appVersion string
		values, templates  string
		crds               map[string][]byte
	}{
		// The appVersion the argocd role requires (argocd_expected_version).
		{"argocd", v.str("argocd_expected_version"), argoCDValues, argoCDTemplates, argoCDCRDs},
		// The controller the environment runs (.ci/e2e/argo-workflows).
		{"argo_workflows", ir.ArgoWorkflowsVersion, workflowsValues, workflowsTemplates, wfCRDs},
		{"argo_events", "simulated", eventsValues, eventsTemplates, evCRDs},
		{"sealed_secrets", "simulated", "{}\n", sealedSecretsTemplates, map[string][]byte{"crds/sealedsecrets.yaml": sealed}},
		{"gitops_handoff", "simulated", "projects: {}\napplications: {}\n", argoCDAppsTemplates, nil},
	}
	var out []standInChart
	for _, s := range specs {
		c := standInChart{
			prefix:  s.prefix,
			name:    v.str(s.prefix + "_chart"),
			repoURL: v.str(s.prefix + "_chart_repo_url"),
			version: v.str(s.prefix + "_chart_version"),
		}
		if c.name == "" || c.repoURL == "" || c.version == "" {
			return nil, fmt.Errorf("group_vars: %s_chart, %s_chart_repo_url and %s_chart_version must be set (a chart from a local path cannot be stood in for)", s.prefix, s.prefix, s.prefix)
		}
		c.appVersion = s.appVersion
		if c.appVersion == "" {
			c.appVersion = c.version
		}
		c.files = map[string][]byte{
			"values.yaml":                 []byte(s.values),
			"templates/e2e-stand-in.yaml": []byte(s.templates),
		}
		for n, b := range s.crds {
			c.files[n] = b
		}
		out = append(out, c)
	}
	return out, nil
}

// chartFiles is the chart's files with its Chart.yaml.
func (c standInChart) chartFiles() (map[string][]byte, error) {
	meta, err := yaml.Marshal(map[string]any{
		"apiVersion": "v2", "name": c.name, "version": c.version, "appVersion": c.appVersion, "type": "application",
		"description": "A stand-in for the upstream " + c.name + " chart, generated by platc's e2e environment (e2e/charts.go)",
	})
	if err != nil {
		return nil, err
	}
	files := maps.Clone(c.files)
	files["Chart.yaml"] = meta
	return files, nil
}

// unsafeTags drops Ansible's !unsafe tags, which only say "no Jinja".
func unsafeTags(b []byte) []byte { return bytes.ReplaceAll(b, []byte("!unsafe "), nil) }

// crdFiles reads the CRDs of the files matching glob into a chart's
// crds/ directory, one file each.
func crdFiles(glob string) (map[string][]byte, error) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no CRDs at %s (is PLATC_E2E_SRC right?)", glob)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out["crds/"+filepath.Base(f)] = b
	}
	return out, nil
}

// The Argo CD stand-in. Names are the upstream ones for the release
// "argocd" (nameOverride argocd), which platc's group_vars choose.
const argoCDValues = `configs:
  cm:
    create: true
  rbac:
    create: true
  params:
    create: true
    server.insecure: false
    controller.status.processors: 20
    controller.operation.processors: 10
    reposerver.parallelism.limit: 0
  secret:
    createSecret: true
`

// argoCDComponents are the pods of the Argo CD stand-in: name, kind,
// port, and the environment the upstream chart gives each from
// argocd-cmd-params-cm and from argocd-cm.
var argoCDComponents = []struct {
	name, kind string
	port       int
	env        map[string]string // variable → argocd-cmd-params-cm key
	cmEnv      map[string]string // variable → argocd-cm key
}{
	{"argocd-redis", "Deployment", 6379, nil, nil},
	{"argocd-repo-server", "Deployment", 8081, map[string]string{"ARGOCD_REPO_SERVER_PARALLELISM_LIMIT": "reposerver.parallelism.limit"},
		map[string]string{"ARGOCD_RECONCILIATION_TIMEOUT": "timeout.reconciliation"}},
	// The controller reads its resync period only from these variables
	// (--app-resync's default), never from argocd-cm itself: without
	// them timeout.reconciliation would not reach it.
	{"argocd-application-controller", "StatefulSet", 8082, map[string]string{
		"ARGOCD_CONTROLLER_STATUS_PROCESSORS":    "controller.status.processors",
		"ARGOCD_CONTROLLER_OPERATION_PROCESSORS": "controller.operation.processors",
	}, map[string]string{
		"ARGOCD_RECONCILIATION_TIMEOUT":      "timeout.reconciliation",
		"ARGOCD_HARD_RECONCILIATION_TIMEOUT": "timeout.hard.reconciliation",
		"ARGOCD_RECONCILIATION_JITTER":       "timeout.reconciliation.jitter",
	}},
	{"argocd-server", "Deployment", 8080, map[string]string{"ARGOCD_SERVER_INSECURE": "server.insecure"}, nil},
}

var argoCDTemplates = `{{- define "labels" }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/part-of: argocd
app.kubernetes.io/component: {{ trimPrefix "argocd-" .name }}
{{- end }}
{{- if .Values.configs.cm.create }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-cm") | nindent 4 }}
data:
  {{- toYaml (omit .Values.configs.cm "create" "annotations") | nindent 2 }}
{{- end }}
{{- if .Values.configs.rbac.create }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-rbac-cm
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-rbac-cm") | nindent 4 }}
data:
  {{- toYaml (omit .Values.configs.rbac "create" "annotations") | nindent 2 }}
{{- end }}
{{- if .Values.configs.params.create }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cmd-params-cm
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-cmd-params-cm") | nindent 4 }}
data:
  {{- range $key, $value := omit .Values.configs.params "create" "annotations" }}
  {{ $key }}: {{ $value | quote }}
  {{- end }}
{{- end }}
{{- range $name := list "argocd-tls-certs-cm" "argocd-ssh-known-hosts-cm" "argocd-gpg-keys-cm" }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $name }}
  namespace: {{ $.Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" $name) | nindent 4 }}
{{- end }}
{{- if .Values.configs.secret.createSecret }}
---
apiVersion: v1
kind: Secret
type: Opaque
metadata:
  name: argocd-secret
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-secret") | nindent 4 }}
{{- end }}
{{- /* The Redis password, as upstream: a pre-install hook Job runs
  argocd admin redis-initial-password, which creates the argocd-redis
  Secret; the process kubelet runs that command. */}}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: argocd-redis-secret-init
  namespace: {{ .Release.Namespace }}
  annotations: {"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-delete-policy": "before-hook-creation"}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-redis-secret-init") | nindent 4 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: argocd-redis-secret-init
  namespace: {{ .Release.Namespace }}
  annotations: {"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-delete-policy": "before-hook-creation"}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-redis-secret-init") | nindent 4 }}
rules:
- {apiGroups: [""], resources: [secrets], resourceNames: [argocd-redis], verbs: [get]}
- {apiGroups: [""], resources: [secrets], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: argocd-redis-secret-init
  namespace: {{ .Release.Namespace }}
  annotations: {"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-delete-policy": "before-hook-creation"}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-redis-secret-init") | nindent 4 }}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: argocd-redis-secret-init}
subjects:
- {kind: ServiceAccount, name: argocd-redis-secret-init, namespace: {{ .Release.Namespace }}}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: argocd-redis-secret-init
  namespace: {{ .Release.Namespace }}
  annotations: {"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-delete-policy": "before-hook-creation"}
  labels: {{- include "labels" (dict "root" $ "name" "argocd-redis-secret-init") | nindent 4 }}
spec:
  template:
    metadata:
      labels: {{- include "labels" (dict "root" $ "name" "argocd-redis-secret-init") | nindent 8 }}
    spec:
      serviceAccountName: argocd-redis-secret-init
      restartPolicy: OnFailure
      containers:
      - name: secret-init
        image: quay.io/argoproj/argocd:{{ .Chart.AppVersion }}
        command: [argocd, admin, redis-initial-password]
` + argoCDWorkloads()

// argoCDWorkloads is the template of every Argo CD component: its
// ServiceAccount, RBAC, Service and workload.
func argoCDWorkloads() string {
	var b strings.Builder
	for _, c := range argoCDComponents {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: %[1]s
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "%[1]s") | nindent 4 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .Release.Name }}-%[1]s
  labels: {{- include "labels" (dict "root" $ "name" "%[1]s") | nindent 4 }}
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .Release.Name }}-%[1]s
  labels: {{- include "labels" (dict "root" $ "name" "%[1]s") | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ .Release.Name }}-%[1]s
subjects:
- kind: ServiceAccount
  name: %[1]s
  namespace: {{ .Release.Namespace }}
---
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "%[1]s") | nindent 4 }}
spec:
  selector:
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/name: %[1]s
  ports:
`, c.name)
		if c.name == "argocd-server" {
			b.WriteString(`  - {name: http, port: 80, targetPort: 8080, protocol: TCP}
  - {name: https, port: 443, targetPort: 8080, protocol: TCP}
`)
		} else {
			fmt.Fprintf(&b, "  - {name: tcp, port: %d, targetPort: %d, protocol: TCP}\n", c.port, c.port)
		}
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: %[2]s
metadata:
  name: %[1]s
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" (dict "root" $ "name" "%[1]s") | nindent 4 }}
spec:
  replicas: 1
`, c.name, c.kind)
		if c.kind == "StatefulSet" {
			fmt.Fprintf(&b, "  serviceName: %s\n", c.name)
		}
		fmt.Fprintf(&b, `  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
      app.kubernetes.io/name: %[1]s
  template:
    metadata:
      labels: {{- include "labels" (dict "root" $ "name" "%[1]s") | nindent 8 }}
    spec:
      serviceAccountName: %[1]s
      containers:
      - name: %[2]s
        image: quay.io/argoproj/argocd:{{ .Chart.AppVersion }}
        ports:
        - {containerPort: %[3]d, protocol: TCP}
`, c.name, strings.TrimPrefix(c.name, "argocd-"), c.port)
		if c.name == "argocd-redis" {
			// As upstream: the password the init Job generated.
			b.WriteString(`        args: ["--save", "", "--appendonly", "no", "--requirepass $(REDIS_PASSWORD)"]
`)
		}
		// Every component reads the Redis password from the Secret the
		// redis-secret-init Job creates, not optional, as upstream: no
		// Secret, no container.
		b.WriteString(`        env:
        - name: REDIS_PASSWORD
          valueFrom:
            secretKeyRef: {name: argocd-redis, key: auth}
`)
		for _, k := range slices.Sorted(maps.Keys(c.env)) {
			fmt.Fprintf(&b, `        - name: %s
          valueFrom:
            configMapKeyRef: {name: argocd-cmd-params-cm, key: %s, optional: true}
`, k, c.env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(c.cmEnv)) {
			fmt.Fprintf(&b, `        - name: %s
          valueFrom:
            configMapKeyRef: {name: argocd-cm, key: %s, optional: true}
`, k, c.cmEnv[k])
		}
	}
	return b.String()
}

// The Argo Workflows stand-in: the controller only (the upstream chart's
// Argo Server is left out), with the upstream chart's arguments and
// environment, extraArgs and extraEnv appended.
const workflowsValues = `crds:
  install: true
  keep: true
controller:
  extraArgs: []
  extraEnv: []
  metricsConfig:
    enabled: false
  telemetryConfig:
    enabled: false
  logging:
    level: info
`

const workflowsTemplates = `{{- define "labels" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/name: {{ .Release.Name }}-workflow-controller
app.kubernetes.io/component: workflow-controller
app.kubernetes.io/part-of: argo-workflows
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-workflow-controller-configmap
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" . | nindent 4 }}
data:
  metricsConfig: |
    enabled: {{ .Values.controller.metricsConfig.enabled }}
  telemetryConfig: |
    enabled: {{ .Values.controller.telemetryConfig.enabled }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}-workflow-controller
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" . | nindent 4 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ .Release.Name }}-workflow-controller
  labels: {{- include "labels" . | nindent 4 }}
rules:
- apiGroups: ["*"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ .Release.Name }}-workflow-controller
  labels: {{- include "labels" . | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ .Release.Name }}-workflow-controller
subjects:
- kind: ServiceAccount
  name: {{ .Release.Name }}-workflow-controller
  namespace: {{ .Release.Namespace }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-workflow-controller
  namespace: {{ .Release.Namespace }}
  labels: {{- include "labels" . | nindent 4 }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
      app.kubernetes.io/name: {{ .Release.Name }}-workflow-controller
  template:
    metadata:
      labels: {{- include "labels" . | nindent 8 }}
    spec:
      serviceAccountName: {{ .Release.Name }}-workflow-controller
      containers:
      - name: controller
        image: quay.io/argoproj/workflow-controller:{{ (.Values.images | default dict).tag | default .Chart.AppVersion }}
        args:
        - --configmap
        - {{ .Release.Name }}-workflow-controller-configmap
        - --executor-image
        - quay.io/argoproj/argoexec:{{ .Chart.AppVersion }}
        - --loglevel
        - {{ .Values.controller.logging.level }}
        {{- with .Values.controller.extraArgs }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        env:
        - name: ARGO_NAMESPACE
          valueFrom:
            fieldRef: {fieldPath: metadata.namespace}
        - name: LEADER_ELECTION_IDENTITY
          valueFrom:
            fieldRef: {fieldPath: metadata.name}
        # One replica: nothing to elect (a stand-in's choice).
        - name: LEADER_ELECTION_DISABLE
          value: "true"
        {{- with .Values.controller.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
        ports:
        - {name: metrics, containerPort: 9090}
        - {containerPort: 6060}
`

// The Argo Events stand-in: its CRDs and a controller Deployment that
// kwok runs (no Argo Events process here: pushes play no part in a
// deploy).
const eventsValues = `crds:
  install: true
  keep: true
configs: {}
`

const eventsTemplates = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-controller-manager
  namespace: {{ .Release.Namespace }}
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
data:
  controller-config.yaml: |
    {{- toYaml .Values.configs | nindent 4 }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-controller-manager
  namespace: {{ .Release.Namespace }}
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/name: {{ .Release.Name }}-controller-manager
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
      app.kubernetes.io/name: {{ .Release.Name }}-controller-manager
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
        app.kubernetes.io/name: {{ .Release.Name }}-controller-manager
    spec:
      containers:
      - name: controller-manager
        image: quay.io/argoproj/argo-events:simulated
`

// The Sealed Secrets stand-in: a permissive SealedSecret CRD and a
// controller Deployment that kwok runs (no controller process here).
const sealedSecretsTemplates = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
    app.kubernetes.io/name: sealed-secrets
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
      app.kubernetes.io/name: sealed-secrets
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
        app.kubernetes.io/name: sealed-secrets
    spec:
      containers:
      - name: controller
        image: docker.io/bitnami/sealed-secrets-controller:simulated
`

// The argocd-apps stand-in: the upstream templates' shape (argocd-apps
// 2.x), including what they print without quoting (description,
// project); one metadata template serves both kinds, as their metadata
// blocks are the same.
const argoCDAppsTemplates = `{{- define "metadata" }}
metadata:
  {{- with .item.additionalAnnotations }}
  annotations:
    {{- range $key, $value := . }}
    {{ $key }}: {{ $value | quote }}
    {{- end }}
  {{- end }}
  {{- with .item.additionalLabels }}
  labels:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  name: {{ .name }}
  namespace: {{ .item.namespace | default .root.Release.Namespace }}
  {{- with .item.finalizers }}
  finalizers:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- range $name, $p := .Values.projects }}
---
apiVersion: argoproj.io/v1alpha1
kind: AppProject
{{- include "metadata" (dict "name" $name "item" $p "root" $) }}
spec:
  {{- with $p.description }}
  description: {{ . }}
  {{- end }}
  {{- range $field := list "sourceRepos" "sourceNamespaces" "destinations" "clusterResourceWhitelist" "clusterResourceBlacklist" "namespaceResourceBlacklist" "namespaceResourceWhitelist" "roles" "syncWindows" "signatureKeys" "orphanedResources" "destinationServiceAccounts" }}
  {{- with index $p $field }}
  {{ $field }}:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- end }}
  {{- with $p.permitOnlyProjectScopedClusters }}
  permitOnlyProjectScopedClusters: {{ . }}
  {{- end }}
{{- end }}
{{- range $name, $a := .Values.applications }}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
{{- include "metadata" (dict "name" $name "item" $a "root" $) }}
spec:
  project: {{ tpl $a.project $ }}
  {{- range $field := list "source" "sources" "destination" "syncPolicy" "ignoreDifferences" "info" }}
  {{- with index $a $field }}
  {{ $field }}:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- end }}
  {{- with $a.revisionHistoryLimit }}
  revisionHistoryLimit: {{ . }}
  {{- end }}
{{- end }}
`
