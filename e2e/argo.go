package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// applyCRDFiles creates the CRDs in the YAML files matching glob and
// waits until the API server serves them.
func (e *Env) applyCRDFiles(ctx context.Context, glob string) error {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs at %s (is PLATC_E2E_SRC right?)", glob)
	}
	var objs []map[string]any
	for _, f := range files {
		if strings.HasSuffix(f, "kustomization.yaml") {
			continue
		}
		docs, err := readObjects(f)
		if err != nil {
			return err
		}
		for _, obj := range docs {
			if obj["kind"] == "CustomResourceDefinition" {
				objs = append(objs, obj)
			}
		}
	}
	return e.applyCRDs(ctx, objs)
}

// readObjects reads every object of a multi-document YAML file.
func readObjects(file string) ([]map[string]any, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var objs []map[string]any
	for _, doc := range bytes.Split(b, []byte("\n---")) {
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if obj != nil {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

func (e *Env) applyCRDs(ctx context.Context, objs []map[string]any) error {
	var names []string
	for _, obj := range objs {
		u := &unstructured.Unstructured{Object: obj}
		if _, err := e.Dynamic.Resource(crdGVR).Create(ctx, u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	for _, n := range names {
		err := waitFor(ctx, nil, "CRD "+n, time.Minute, func(ctx context.Context) error {
			u, err := e.Dynamic.Resource(crdGVR).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				if m, _ := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
					return nil
				}
			}
			return fmt.Errorf("not established")
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *Env) ensureNamespace(ctx context.Context, ns string) error {
	_, err := e.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// upsertConfigMap creates or replaces a ConfigMap.
func (e *Env) upsertConfigMap(ctx context.Context, cm *corev1.ConfigMap) error {
	_, err := e.Kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = e.Kube.CoreV1().ConfigMaps(cm.Namespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	return err
}

func (e *Env) upsertSecret(ctx context.Context, s *corev1.Secret) error {
	_, err := e.Kube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = e.Kube.CoreV1().Secrets(s.Namespace).Update(ctx, s, metav1.UpdateOptions{})
	}
	return err
}

// ArgoCDConfig is what the argo-cd Helm chart would write from platc's
// argocd/values.yaml: the chart cannot be fetched here, so the
// environment applies its configs.cm, configs.rbac and configs.params
// itself.
type ArgoCDConfig struct {
	Namespace string
	// Server is the address the workflow steps dial
	// (platform.argocd.server).
	Server string
	CM     map[string]string
	RBAC   map[string]string
	Params map[string]string
}

// ParseValues reads configs.cm, configs.rbac and configs.params from the
// chart values platc generated (argocd/values.yaml).
func ParseValues(b []byte, namespace, server string) (*ArgoCDConfig, error) {
	var v struct {
		Configs struct {
			CM     map[string]any `json:"cm"`
			RBAC   map[string]any `json:"rbac"`
			Params map[string]any `json:"params"`
		} `json:"configs"`
	}
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("argocd/values.yaml: %w", err)
	}
	str := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for k, x := range m {
			// The chart writes every value into a ConfigMap as text.
			out[k] = fmt.Sprint(x)
		}
		return out
	}
	return &ArgoCDConfig{Namespace: namespace, Server: server, CM: str(v.Configs.CM), RBAC: str(v.Configs.RBAC), Params: str(v.Configs.Params)}, nil
}

// ArgoCD is the running Argo CD.
type ArgoCD struct {
	Namespace string
	Addr      string // argocd-server on loopback
	Insecure  bool   // served without TLS (server.insecure)
	// AdminPassword is the initial admin password argocd-server chose.
	AdminPassword string
	cliHome       string
}

// InstallArgoCD starts redis and Argo CD (repo-server, application
// controller, server: the real multi-call binary) with cfg, after the
// CRDs from Argo CD's module.
func (e *Env) InstallArgoCD(ctx context.Context, cfg *ArgoCDConfig) (*ArgoCD, error) {
	ns := cfg.Namespace
	if err := e.argoCDObjects(ctx, cfg); err != nil {
		return nil, err
	}
	env, state, err := e.argoCDEnv(ns)
	if err != nil {
		return nil, err
	}
	redis, err := e.startRedis(ctx)
	if err != nil {
		return nil, err
	}
	repo, err := e.startRepoServer(ctx, env, state, redis)
	if err != nil {
		return nil, err
	}
	_, cm := ports()
	if _, err := e.procs.start("argocd-application-controller", e.bin("argocd-application-controller"), []string{
		"--repo-server", repo, "--redis", redis, "--metrics-port", strconv.Itoa(cm),
		"--status-processors", "20", "--operation-processors", "10",
		"--loglevel", "info",
	}, env); err != nil {
		return nil, err
	}
	a, err := e.startArgoCDServer(ctx, cfg, env, state, redis, repo)
	if err != nil {
		return nil, err
	}
	if err := e.argoCDPods(ctx, ns, map[string]portMap{
		"argocd-server":                 {8080, a.Addr},
		"argocd-repo-server":            {8081, repo},
		"argocd-redis":                  {6379, redis},
		"argocd-application-controller": {8082, fmt.Sprintf("127.0.0.1:%d", cm)},
	}); err != nil {
		return nil, err
	}
	// The steps dial platform.argocd.server; the simulated network sends
	// that address, and the Service's other names, to this server.
	for _, port := range []string{"80", "443"} {
		for _, host := range []string{"argocd-server", "argocd-server." + ns, "argocd-server." + ns + ".svc", "argocd-server." + ns + ".svc.cluster.local"} {
			e.net.service(net.JoinHostPort(host, port), a.Addr)
		}
	}
	e.net.service(cfg.Server, a.Addr)
	if err := waitFor(ctx, nil, "argocd-initial-admin-secret", 60*time.Second, func(ctx context.Context) error {
		s, err := e.Kube.CoreV1().Secrets(ns).Get(ctx, "argocd-initial-admin-secret", metav1.GetOptions{})
		if err != nil {
			return err
		}
		a.AdminPassword = string(s.Data["password"])
		return nil
	}); err != nil {
		return nil, err
	}
	return a, nil
}

// argoCDObjects creates what Argo CD reads at start: its CRDs,
// ConfigMaps and Secrets.
func (e *Env) argoCDObjects(ctx context.Context, cfg *ArgoCDConfig) error {
	ns := cfg.Namespace
	if err := e.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	if err := e.applyCRDFiles(ctx, filepath.Join(e.opts.Src, "argo-cd", "manifests", "crds", "*.yaml")); err != nil {
		return err
	}
	// Argo CD reads only ConfigMaps and Secrets labelled part-of argocd.
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}
	}
	for name, data := range map[string]map[string]string{
		"argocd-cm": cfg.CM, "argocd-rbac-cm": cfg.RBAC, "argocd-cmd-params-cm": cfg.Params,
		"argocd-tls-certs-cm": nil, "argocd-ssh-known-hosts-cm": nil, "argocd-gpg-keys-cm": nil,
	} {
		if err := e.upsertConfigMap(ctx, &corev1.ConfigMap{ObjectMeta: meta(name), Data: data}); err != nil {
			return err
		}
	}
	if err := e.upsertSecret(ctx, &corev1.Secret{ObjectMeta: meta("argocd-secret")}); err != nil {
		return err
	}
	// No argocd-server-tls: as in a fresh install, argocd-server makes a
	// self-signed certificate of its own, which nothing here trusts. The
	// steps get through only the way platc's output says (plain HTTP/2
	// with server.insecure by default).
	return nil
}

// argoCDEnv is the environment of Argo CD's processes, with their state
// under the environment's directory.
func (e *Env) argoCDEnv(ns string) (env []string, state string, err error) {
	kubeconfig, err := e.kubeconfigFile(ns)
	if err != nil {
		return nil, "", err
	}
	state = filepath.Join(e.opts.Dir, "argocd")
	for _, d := range []string{"tls", "ssh", "gnupg", "static", "tmp"} {
		if err := os.MkdirAll(filepath.Join(state, d), 0o700); err != nil {
			return nil, "", err
		}
	}
	env = []string{
		"KUBECONFIG=" + kubeconfig,
		// Outside a cluster, Argo CD takes the kubeconfig's cluster for
		// the in-cluster destination https://kubernetes.default.svc.
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"ARGOCD_TLS_DATA_PATH=" + filepath.Join(state, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(state, "ssh"),
		"ARGOCD_GNUPGHOME=" + filepath.Join(state, "gnupg"),
		"ARGOCD_GPG_ENABLED=false",
		"TMPDIR=" + filepath.Join(state, "tmp"),
		"PATH=" + e.ToolPath(),
	}
	return env, state, nil
}

// startRedis starts Debian's redis-server for Argo CD and returns its
// address.
func (e *Env) startRedis(ctx context.Context) (string, error) {
	redisPort, _ := freePort()
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", err
	}
	p, err := e.procs.start("redis", redisBin, []string{"--port", strconv.Itoa(redisPort), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no"}, nil)
	if err != nil {
		return "", err
	}
	redis := fmt.Sprintf("127.0.0.1:%d", redisPort)
	return redis, waitFor(ctx, p, "redis", 30*time.Second, dialCheck(redis))
}

// startRepoServer starts the repo-server, which reaches the simulated
// internet through the proxy, and returns its address.
func (e *Env) startRepoServer(ctx context.Context, env []string, state, redis string) (string, error) {
	rp, rm := ports()
	repoEnv := append(slices.Clone(env),
		// The repo-server fetches charts and Git repositories through the
		// simulated internet, and trusts its CA.
		"HTTPS_PROXY="+e.net.ProxyURL(), "HTTP_PROXY="+e.net.ProxyURL(),
		"https_proxy="+e.net.ProxyURL(), "http_proxy="+e.net.ProxyURL(),
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"SSL_CERT_FILE="+e.caFile, "GIT_SSL_CAINFO="+e.caFile,
		"HOME="+filepath.Join(state, "tmp"),
		// v3.2's repo-server verifies nothing without GPG; no wrapper needed.
	)
	p, err := e.procs.start("argocd-repo-server", e.bin("argocd-repo-server"), []string{
		"--port", strconv.Itoa(rp), "--metrics-port", strconv.Itoa(rm), "--address", "127.0.0.1",
		"--redis", redis, "--loglevel", "info", "--parallelismlimit", "8",
	}, repoEnv)
	if err != nil {
		return "", err
	}
	repo := fmt.Sprintf("127.0.0.1:%d", rp)
	return repo, waitFor(ctx, p, "argocd-repo-server", 90*time.Second, dialCheck(repo))
}

// startArgoCDServer starts argocd-server and waits until it serves.
func (e *Env) startArgoCDServer(ctx context.Context, cfg *ArgoCDConfig, env []string, state, redis, repo string) (*ArgoCD, error) {
	ns := cfg.Namespace
	sp, sm := ports()
	insecure := cfg.Params["server.insecure"] == "true"
	args := []string{"--port", strconv.Itoa(sp), "--metrics-port", strconv.Itoa(sm), "--address", "127.0.0.1",
		"--redis", redis, "--repo-server", repo, "--staticassets", filepath.Join(state, "static"), "--loglevel", "info"}
	if insecure {
		args = append(args, "--insecure")
	}
	p, err := e.procs.start("argocd-server", e.bin("argocd-server"), args, env)
	if err != nil {
		return nil, err
	}
	a := &ArgoCD{Namespace: ns, Addr: fmt.Sprintf("127.0.0.1:%d", sp), Insecure: insecure, cliHome: filepath.Join(state, "cli")}
	scheme := "https"
	if insecure {
		scheme = "http"
	}
	// A readiness probe, like the kubelet's: it does not verify the
	// certificate (argocd-server's own, self-signed, when it serves TLS).
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a probe, not a client
	if err := waitFor(ctx, p, "argocd-server", 120*time.Second, httpCheck(hc, scheme+"://"+a.Addr+"/healthz")); err != nil {
		return nil, err
	}
	return a, nil
}

// bin is the path of a component's binary.
func (e *Env) bin(name string) string { return filepath.Join(e.opts.Bin, name) }

// ports returns two free ports.
func ports() (int, int) { a, _ := freePort(); b, _ := freePort(); return a, b }

// portMap is a component's port in its pod and where the process that
// plays it listens.
type portMap struct {
	port int32
	addr string
}

var clusterPortForwardGVR = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "clusterportforwards"}

// argoCDPods makes Argo CD's components exist as the chart's pods (kwok
// runs them, with the chart's labels), and sends port-forwards to them
// to the processes that really are Argo CD: what the argocd CLI's core
// mode and the bootstrap's pod lookups need.
func (e *Env) argoCDPods(ctx context.Context, ns string, comps map[string]portMap) error {
	var forwards []any
	for _, name := range slices.Sorted(maps.Keys(comps)) {
		c := comps[name]
		labels := map[string]string{"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "argocd", "app.kubernetes.io/component": strings.TrimPrefix(name, "argocd-")}
		if err := e.createDeployment(ctx, &appsDeployment{name: name, ns: ns, labels: labels, replicas: 1, port: c.port}); err != nil {
			return err
		}
		host, port, err := net.SplitHostPort(c.addr)
		if err != nil {
			return err
		}
		p, _ := strconv.Atoi(port)
		forwards = append(forwards, map[string]any{"ports": []any{c.port}, "target": map[string]any{"address": host, "port": p}})
	}
	pf := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ClusterPortForward",
		"metadata": map[string]any{"name": "argocd-" + ns},
		"spec":     map[string]any{"selector": map[string]any{"matchNamespaces": []any{ns}}, "forwards": forwards},
	}}
	if _, err := e.Dynamic.Resource(clusterPortForwardGVR).Create(ctx, pf, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return waitFor(ctx, nil, "Argo CD's pods", time.Minute, func(ctx context.Context) error {
		for name := range comps {
			d, err := e.Kube.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if d.Status.AvailableReplicas < 1 {
				return fmt.Errorf("%s not available", name)
			}
		}
		return nil
	})
}

// CLI runs the real argocd CLI as the admin against this Argo CD, the
// way an operator at a terminal would.
func (e *Env) CLI(ctx context.Context, a *ArgoCD, args ...string) (string, error) {
	opts := []string{"--server", a.Addr}
	if a.Insecure {
		opts = append(opts, "--plaintext")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(e.opts.Bin, "argocd"), append(args, opts...)...)
	cmd.Env = []string{"HOME=" + a.cliHome, "PATH=" + e.ToolPath(), "SSL_CERT_FILE=" + e.caFile}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("argocd %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// IssueToken issues an API token for account with the bootstrap's own
// token step: the script of the gitops-handoff role's "Issue an API
// token" task, read from the generated role, run with bash, the real
// kubectl and argocd CLI, and the admin kubeconfig, as Ansible would run
// it on the bootstrap host. The CLI in core mode finds Argo CD's pods and
// port-forwards to them through the API server and kwok's kubelet API.
// It also logs the admin in, for CLI.
func (e *Env) IssueToken(ctx context.Context, a *ArgoCD, generated, account string) (string, error) {
	if err := os.MkdirAll(a.cliHome, 0o700); err != nil {
		return "", err
	}
	if _, err := e.CLI(ctx, a, "login", a.Addr, "--username", "admin", "--password", a.AdminPassword); err != nil {
		return "", err
	}
	script, err := roleScript(filepath.Join(generated, "ansible", "roles", "gitops-handoff", "tasks", "main.yml"), tokenTaskName)
	if err != nil {
		return "", err
	}
	home, err := os.MkdirTemp(e.opts.Dir, "bootstrap-host-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=" + e.ToolPath(), "KUBECONFIG=" + e.Kubeconfig,
		"ARGOCD_NAMESPACE=" + a.Namespace, "ARGOCD_ACCOUNT=" + account}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the bootstrap's token step: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

const tokenTaskName = "Apply | Issue an API token for the automation account"

// roleScript finds the task called name in a role's tasks file (in
// blocks too) and returns its shell script.
func roleScript(file, name string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var tasks []any
	if err := yaml.Unmarshal(b, &tasks); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	var find func([]any) string
	find = func(ts []any) string {
		for _, x := range ts {
			t, _ := x.(map[string]any)
			if t["name"] == name {
				if sh, ok := t["ansible.builtin.shell"].(map[string]any); ok {
					s, _ := sh["cmd"].(string)
					return s
				}
			}
			for _, k := range []string{"block", "rescue", "always"} {
				if sub, ok := t[k].([]any); ok {
					if s := find(sub); s != "" {
						return s
					}
				}
			}
		}
		return ""
	}
	if s := find(tasks); s != "" {
		return s, nil
	}
	return "", fmt.Errorf("%s: no shell task %q", file, name)
}

// WorkflowsConfig is what the argo-workflows chart would give the
// workflow controller from platc's values: the environment variables and
// arguments platc adds (controller.extraEnv and controller.extraArgs of
// argo_workflows_values in the generated group_vars). Every other
// setting is the controller's default, as the chart leaves it.
type WorkflowsConfig struct {
	Namespace string
	Env       []string // NAME=value
	Args      []string
}

// ParseWorkflowsValues reads the controller's settings from the
// generated group_vars (ansible/inventories/<env>/group_vars/all.yml).
func ParseWorkflowsValues(groupVars []byte, namespace string) (*WorkflowsConfig, error) {
	var v struct {
		Values struct {
			Controller struct {
				ExtraEnv []struct {
					Name      string `json:"name"`
					Value     string `json:"value"`
					ValueFrom any    `json:"valueFrom"`
				} `json:"extraEnv"`
				ExtraArgs []string `json:"extraArgs"`
			} `json:"controller"`
		} `json:"argo_workflows_values"`
	}
	if err := yaml.Unmarshal(groupVars, &v); err != nil {
		return nil, fmt.Errorf("group_vars: %w", err)
	}
	cfg := &WorkflowsConfig{Namespace: namespace, Args: v.Values.Controller.ExtraArgs}
	for _, e := range v.Values.Controller.ExtraEnv {
		// A reference would need the kubelet's resolution; platc ships
		// plain values only, and the harness should not guess.
		if e.Name == "" || e.ValueFrom != nil {
			return nil, fmt.Errorf("group_vars: argo_workflows_values.controller.extraEnv %q: only name and value are supported here", e.Name)
		}
		cfg.Env = append(cfg.Env, e.Name+"="+e.Value)
	}
	return cfg, nil
}

// InstallWorkflows starts the Argo Workflows controller (the real one)
// watching every namespace, after the CRDs from Argo Workflows' module,
// with the settings platc's chart values give it and the chart's
// defaults otherwise.
func (e *Env) InstallWorkflows(ctx context.Context, cfg *WorkflowsConfig) error {
	ns := cfg.Namespace
	if err := e.ensureNamespace(ctx, ns); err != nil {
		return err
	}
	// What the argo-workflows chart installs by default.
	if err := e.applyCRDFiles(ctx, filepath.Join(e.opts.Src, "argo-workflows", "manifests", "base", "crds", "minimal", "*.yaml")); err != nil {
		return err
	}
	if err := e.upsertConfigMap(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "workflow-controller-configmap", Namespace: ns},
		Data: map[string]string{
			"metricsConfig":   "{enabled: false}",
			"telemetryConfig": "{enabled: false}",
		},
	}); err != nil {
		return err
	}
	kubeconfig, err := e.kubeconfigFile(ns)
	if err != nil {
		return err
	}
	args := append([]string{
		"--kubeconfig", kubeconfig, "--configmap", "workflow-controller-configmap",
		"--executor-image", "quay.io/argoproj/argoexec:v3.7.18", "--loglevel", "info",
	}, cfg.Args...)
	// One process and no Lease to contend for: the harness's own
	// setting (the chart sets it too, for one replica).
	env := append([]string{"LEADER_ELECTION_DISABLE=true"}, cfg.Env...)
	p, err := e.procs.start("workflow-controller", filepath.Join(e.opts.Bin, "workflow-controller"), args, env)
	if err != nil {
		return err
	}
	// Its health endpoint is fixed at :6060.
	return waitFor(ctx, p, "workflow-controller", 90*time.Second, httpCheck(&http.Client{Timeout: 2 * time.Second}, "http://127.0.0.1:6060/healthz"))
}

// InstallEvents adds Argo Events' CRDs from its module, so the platform's
// events objects can be applied; no Argo Events controller runs (pushes
// play no part in a deploy).
func (e *Env) InstallEvents(ctx context.Context) error {
	return e.applyCRDFiles(ctx, filepath.Join(e.opts.Src, "argo-events", "manifests", "base", "crds", "*.yaml"))
}

// patchJSON is a small helper for merge patches.
func (e *Env) patchMerge(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, patch []byte, sub ...string) error {
	_, err := e.Dynamic.Resource(gvr).Namespace(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}, sub...)
	return err
}
