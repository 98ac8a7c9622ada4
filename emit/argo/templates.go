package argo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/internal/satmath"
	platcstep "github.com/platc/platc/step"
)

// builder holds what every object of one Program shares.
type builder struct {
	p    *ir.Program
	defs defaults
	// inline makes tasks call templates by name, for workflows that carry
	// their own copy of the ClusterTemplate templates.
	inline bool
	// split, when set, lays the apps DAG out as child workflows.
	split *splitter
	// key is appsKey(p), computed on first use (resume.go).
	key string
	// resPos are the mask positions of the waited-for resources, by
	// Ref, computed on first use (resourceWhen).
	resPos map[string]int
}

func newBuilder(p *ir.Program) *builder {
	return &builder{p: p, defs: newDefaults(p.Apps)}
}

func (b *builder) image() string {
	img, _ := StepImage(b.p)
	return img
}

// StepImage is the image every step runs: platform.workflows.image, or
// else the image of the platc that generated the templates (its release
// tag, from p.Generator), so the steps run the tools that release was
// checked with. warning is non-empty when that default names no published
// image because platc is not a release.
func StepImage(p *ir.Program) (image, warning string) {
	if img := p.Platform.Workflows.Image; img != "" {
		return img, ""
	}
	g := p.Generator
	repo := g.ImageRepository
	if repo == "" {
		repo = ImageRepository
	}
	if g.Release() {
		return repo + ":" + g.Version, ""
	}
	who := "platc " + g.Version
	if g.Version == "" {
		who = "a platc without a version"
	}
	image = repo + ":" + DevImageTag
	return image, fmt.Sprintf("%s is not a release, so the workflow steps default to the image %s, which is not published; "+
		"set platform.workflows.image to an image built from this platc's Dockerfile, or generate with a released platc", who, image)
}

func (b *builder) labels(action string) map[string]string {
	l := map[string]string{labelManagedBy: "platc", labelPlatform: b.p.Platform.Name}
	if action != "" {
		l[labelAction] = action
	}
	return l
}

// argocdEnv connects the argocd CLI to the API server (never --core) with
// the automation token from a Secret the kubelet resolves: the workflow's
// service account needs no right to read Secrets.
func (b *builder) argocdEnv() []apiv1.EnvVar {
	a := b.p.Platform.ArgoCD
	env := []apiv1.EnvVar{{Name: "ARGOCD_SERVER", Value: a.Server}}
	var opts []string
	if a.GRPCWeb {
		opts = append(opts, "--grpc-web")
	}
	if a.Insecure {
		opts = append(opts, "--insecure")
	}
	if a.PlainText {
		opts = append(opts, "--plaintext")
	}
	if len(opts) > 0 {
		env = append(env, apiv1.EnvVar{Name: "ARGOCD_OPTS", Value: strings.Join(opts, " ")})
	}
	env = append(env,
		apiv1.EnvVar{Name: "ARGOCD_AUTH_TOKEN", ValueFrom: &apiv1.EnvVarSource{SecretKeyRef: &apiv1.SecretKeySelector{
			LocalObjectReference: apiv1.LocalObjectReference{Name: a.TokenSecret.Name},
			Key:                  a.TokenSecret.Key,
		}}},
		// The root file system is read-only; the CLI and the scripts use
		// /tmp.
		apiv1.EnvVar{Name: "HOME", Value: "/tmp"},
	)
	return env
}

// env maps environment variables to input parameters.
func env(pairs ...string) []apiv1.EnvVar {
	out := make([]apiv1.EnvVar, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, apiv1.EnvVar{Name: pairs[i], Value: fromInput(pairs[i+1])})
	}
	return out
}

const tmpVolume = "tmp"

// scriptTemplate is a bash step with the argocd connection, least
// privilege and bounded resources.
func (b *builder) scriptTemplate(name, scriptName string, inputs []wfv1.Parameter, vars []apiv1.EnvVar) wfv1.Template {
	c := b.stepContainer(vars)
	c.Command = []string{"bash"}
	return wfv1.Template{
		Name:    name,
		Inputs:  wfv1.Inputs{Parameters: inputs},
		Script:  &wfv1.ScriptTemplate{Container: c, Source: script(scriptName)},
		Volumes: []apiv1.Volume{{Name: tmpVolume, VolumeSource: apiv1.VolumeSource{EmptyDir: &apiv1.EmptyDirVolumeSource{}}}},
	}
}

// platcTemplate is a step that runs `platc step NAME` from the image
// (package step), with the same connection, privileges and bounds as a
// script step.
func (b *builder) platcTemplate(name string, inputs []wfv1.Parameter, vars []apiv1.EnvVar) wfv1.Template {
	c := b.stepContainer(vars)
	// Argo names a template's container main whatever it is called here.
	c.Name = "main"
	c.Command = []string{"platc", "step", name}
	return wfv1.Template{
		Name:      name,
		Inputs:    wfv1.Inputs{Parameters: inputs},
		Container: &c,
		Volumes:   []apiv1.Volume{{Name: tmpVolume, VolumeSource: apiv1.VolumeSource{EmptyDir: &apiv1.EmptyDirVolumeSource{}}}},
	}
}

func (b *builder) stepContainer(vars []apiv1.EnvVar) apiv1.Container {
	no, yes := false, true
	uid := int64(65532)
	return apiv1.Container{
		Image: b.image(),
		Env:   append(vars, b.argocdEnv()...),
		Resources: apiv1.ResourceRequirements{
			Requests: apiv1.ResourceList{
				apiv1.ResourceCPU:    resource.MustParse("50m"),
				apiv1.ResourceMemory: resource.MustParse("64Mi"),
			},
			Limits: apiv1.ResourceList{apiv1.ResourceMemory: resource.MustParse("512Mi")},
		},
		SecurityContext: &apiv1.SecurityContext{
			AllowPrivilegeEscalation: &no,
			Capabilities:             &apiv1.Capabilities{Drop: []apiv1.Capability{"ALL"}},
			ReadOnlyRootFilesystem:   &yes,
			RunAsNonRoot:             &yes,
			RunAsUser:                &uid,
			SeccompProfile:           &apiv1.SeccompProfile{Type: apiv1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts: []apiv1.VolumeMount{{Name: tmpVolume, MountPath: "/tmp"}},
	}
}

// retryFromInputs is the app's retry policy (RFC 5.3), passed in as
// inputs. Always also retries errors such as an evicted pod; every step
// is idempotent, so a retry is safe.
func retryFromInputs() *wfv1.RetryStrategy {
	factor := intstr.FromString(fromInput("retry-factor"))
	limit := intstr.FromString(fromInput("retry-limit"))
	return &wfv1.RetryStrategy{
		Limit:       &limit,
		RetryPolicy: wfv1.RetryPolicyAlways,
		Backoff: &wfv1.Backoff{
			Duration: fromInput("retry-backoff"),
			Factor:   &factor,
			Cap:      fromInput("retry-cap"),
		},
	}
}

// fixedRetry is for steps that have no per-app policy.
func fixedRetry() *wfv1.RetryStrategy {
	limit, factor := intstr.FromInt32(2), intstr.FromInt32(2)
	return &wfv1.RetryStrategy{Limit: &limit, RetryPolicy: wfv1.RetryPolicyAlways, Backoff: &wfv1.Backoff{Duration: "10s", Factor: &factor, Cap: "1m"}}
}

func deadlineFromInput() *intstr.IntOrString {
	d := intstr.FromString(fromInput("deadline"))
	return &d
}

func deadline(seconds int) *intstr.IntOrString {
	d := intstr.FromInt32(int32(seconds))
	return &d
}

func outputFile(name, path, def string) wfv1.Parameter {
	return wfv1.Parameter{Name: name, ValueFrom: &wfv1.ValueFrom{Path: path, Default: wfv1.AnyStringPtr(def)}}
}

func param(name, def string) wfv1.Parameter {
	return wfv1.Parameter{Name: name, Default: wfv1.AnyStringPtr(def)}
}

func passInputs(names ...string) wfv1.Arguments {
	var ps []wfv1.Parameter
	for _, n := range names {
		ps = append(ps, wfv1.Parameter{Name: n, Value: wfv1.AnyStringPtr(fromInput(n))})
	}
	return wfv1.Arguments{Parameters: ps}
}

func value(name, v string) wfv1.Parameter {
	return wfv1.Parameter{Name: name, Value: wfv1.AnyStringPtr(v)}
}

var shortDeadline = int(callHeadroom.Seconds())

// inspectDeadline bounds one attempt of inspect-volumes: its two argocd
// calls and pod start-up.
const inspectDeadline = 2 * callHeadroom

// The templates, one function each, so scoped workflows can inline just
// the ones they use.

// syncAndWait runs platc's own step (package step): one process and one
// connection to argocd-server per app, where a script ran bash, jq and
// three argocd CLI processes. It also switches on the app's automated
// sync as it converges, when auto-sync is "true".
func (b *builder) syncAndWait() wfv1.Template {
	t := b.platcTemplate(tmplSyncAndWait, inputParams(syncInputs, b.defs.sync),
		env("APP", "application", "EXPECT_REVISION", "expect-revision",
			"SYNC_TIMEOUT", "sync-timeout", "HEALTH_TIMEOUT", "health-timeout",
			"AUTO_SYNC", "auto-sync", "SELF_HEAL", "self-heal", "PRUNE", "prune"))
	t.ActiveDeadlineSeconds = deadlineFromInput()
	t.RetryStrategy = retryFromInputs()
	// A Degraded, Unknown or timed-out app is final (RFC 5.3): a retry
	// would only watch the same state for another health timeout.
	t.RetryStrategy.Expression = `lastRetry.exitCode != "` + strconv.Itoa(ExitNotRetried) + `"`
	return t
}

// ExitNotRetried is sync-and-wait's exit code for a failure a retry
// cannot fix (package step says which).
const ExitNotRetried = platcstep.ExitNotRetried

// waitResource is `platc step wait-resource`: read-only, it reads the
// Application's resource tree (RBAC get on applications) until the
// resource exists and, for a kind with health, is Healthy. Only failed
// calls are retried; Degraded, ambiguous or timed out is final.
func (b *builder) waitResource() wfv1.Template {
	t := b.platcTemplate(tmplWaitResource,
		[]wfv1.Parameter{{Name: "application"}, param("group", ""), {Name: "kind"}, {Name: "name"}, param("namespace", ""),
			{Name: "wait"}, {Name: "timeout"}, {Name: "deadline"}},
		env("APP", "application", "GROUP", "group", "KIND", "kind", "NAME", "name", "NAMESPACE", "namespace",
			"WAIT", "wait", "TIMEOUT", "timeout"))
	t.ActiveDeadlineSeconds = deadlineFromInput()
	t.RetryStrategy = fixedRetry()
	t.RetryStrategy.Expression = `lastRetry.exitCode != "` + strconv.Itoa(ExitNotRetried) + `"`
	return t
}

// waitsForResources reports whether any of apps waits for a resource
// node, so that the wait-resource template is emitted only where a task
// calls it.
func waitsForResources(apps []*ir.App) bool {
	for _, a := range apps {
		if len(a.ResourceDeps) > 0 {
			return true
		}
	}
	return false
}

func (b *builder) checkHealthy() wfv1.Template {
	t := b.scriptTemplate(tmplCheckHealthy, "check-healthy", inputParams(checkInputs, nil), env("APP", "application"))
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("health", "/tmp/health", "Unknown"), outputFile("sync", "/tmp/sync", "Unknown")}
	t.ActiveDeadlineSeconds = deadline(shortDeadline)
	return t
}

func (b *builder) checkAbsent() wfv1.Template {
	t := b.scriptTemplate(tmplCheckAbsent, "check-absent", inputParams(absentInputs, b.defs.sync),
		env("APP", "application", "PROJECT", "project"))
	t.ActiveDeadlineSeconds = deadline(shortDeadline)
	return t
}

// deleteAndWait inspects (settles the volume policy), then deletes. The
// snapshots the policy asks for were all taken, and are ready, before the
// teardown's first deletion (snapshotVolumes).
func (b *builder) deleteAndWait() wfv1.Template {
	inputs := append(inputParams(deleteInputs, b.defs.del),
		// The teardown run's override; a Workflow that calls this template
		// must declare the parameter (teardown and scoped teardowns do).
		param("volumes-override", "{{workflow.parameters."+ParamVolumes+"}}"))
	retry := []string{"retry-limit", "retry-backoff", "retry-factor", "retry-cap"}
	return wfv1.Template{
		Name:   tmplDeleteAndWait,
		Inputs: wfv1.Inputs{Parameters: inputs},
		Steps: []wfv1.ParallelSteps{
			{Steps: []wfv1.WorkflowStep{{Name: "inspect", Template: tmplInspect,
				Arguments: passInputs(append([]string{"application", "project", "volumes", "volumes-override"}, retry...)...)}}},
			{Steps: []wfv1.WorkflowStep{{Name: "delete", Template: tmplDeleteApp,
				Arguments: wfv1.Arguments{Parameters: append(passInputs(append([]string{"application", "project", "timeout", "deadline"}, retry...)...).Parameters,
					value("policy", "{{steps.inspect.outputs.parameters.policy}}"))}}}},
		},
	}
}

func (b *builder) inspectVolumes() wfv1.Template {
	t := b.scriptTemplate(tmplInspect, "inspect-volumes",
		[]wfv1.Parameter{{Name: "application"}, {Name: "project"}, {Name: "volumes"}, {Name: "volumes-override"},
			{Name: "retry-limit"}, {Name: "retry-backoff"}, {Name: "retry-factor"}, {Name: "retry-cap"}},
		env("APP", "application", "PROJECT", "project", "VOLUMES", "volumes", "VOLUMES_OVERRIDE", "volumes-override"))
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("policy", "/tmp/policy", "retain")}
	t.ActiveDeadlineSeconds = deadline(int(inspectDeadline.Seconds()))
	t.RetryStrategy = retryFromInputs()
	return t
}

// snapshotVolumes takes every snapshot a teardown's volume policy asks
// for, and waits until each is readyToUse, before the first deletion
// (RFC 6.5): per app, the snapshot controller and the CSI driver may
// themselves be apps of the platform, removed early in the reverse
// order. find-claims lists the claims of every app whose policy is
// snapshot; one snapshot-volume step per claim, all at once (within the
// workflow's parallelism).
func (b *builder) snapshotVolumes() wfv1.Template {
	return wfv1.Template{
		Name:   tmplSnapshots,
		Inputs: wfv1.Inputs{Parameters: []wfv1.Parameter{{Name: "apps"}, param("volumes-override", "{{workflow.parameters."+ParamVolumes+"}}")}},
		Steps: []wfv1.ParallelSteps{
			{Steps: []wfv1.WorkflowStep{{Name: "find", Template: tmplFindClaims, Arguments: passInputs("apps", "volumes-override")}}},
			// Claims of apps that name a VolumeSnapshotClass, and of those
			// that take the cluster's default, at once: a manifest cannot
			// leave a field out at run time.
			{Steps: []wfv1.WorkflowStep{{Name: "snapshot", Template: tmplSnapshot,
				WithParam: "{{steps.find.outputs.parameters.claims}}",
				Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{
					value("claim", "{{item.name}}"), value("namespace", "{{item.namespace}}"),
					value("application", "{{item.application}}"), value("timeout", "{{item.timeout}}"),
				}}}, {Name: "snapshot-of-class", Template: tmplSnapshotClass,
				WithParam: "{{steps.find.outputs.parameters.classed}}",
				Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{
					value("claim", "{{item.name}}"), value("namespace", "{{item.namespace}}"),
					value("application", "{{item.application}}"), value("timeout", "{{item.timeout}}"),
					value("class", "{{item.class}}"),
				}}}}},
		},
	}
}

// findClaimsDeadline bounds one attempt of find-claims: pod start-up and
// a stuck call (callHeadroom), then two quick argocd calls per app; a
// slower attempt is retried.
func findClaimsDeadline(apps int) time.Duration {
	return satmath.Add(callHeadroom, satmath.Mul(15*time.Second, int64(apps)))
}

func (b *builder) findClaims(apps int) wfv1.Template {
	t := b.scriptTemplate(tmplFindClaims, "find-claims", []wfv1.Parameter{{Name: "apps"}, {Name: "volumes-override"}},
		env("APPS", "apps", "VOLUMES_OVERRIDE", "volumes-override"))
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("claims", "/tmp/claims", "[]"), outputFile("classed", "/tmp/classed", "[]")}
	t.ActiveDeadlineSeconds = deadline(int(findClaimsDeadline(apps).Seconds()))
	t.RetryStrategy = fixedRetry()
	return t
}

// snapshotVolume creates a VolumeSnapshot of one claim (default snapshot
// class) and waits until it is ready to use. The manifest is rendered
// once from a Go value; Argo fills in the parameters at run time.
func (b *builder) snapshotVolume() wfv1.Template { return b.snapshotTemplate(false) }

// snapshotVolumeOfClass is snapshotVolume with the VolumeSnapshotClass
// an app's teardown { snapshot_class } names (a validated object name).
func (b *builder) snapshotVolumeOfClass() wfv1.Template { return b.snapshotTemplate(true) }

func (b *builder) snapshotTemplate(classed bool) wfv1.Template {
	spec := map[string]any{"source": map[string]any{"persistentVolumeClaimName": fromInput("claim")}}
	name, inputs := tmplSnapshot, []wfv1.Parameter{{Name: "claim"}, {Name: "namespace"}, {Name: "application"}, {Name: "timeout"}}
	if classed {
		spec["volumeSnapshotClassName"] = fromInput("class")
		name, inputs = tmplSnapshotClass, append(inputs, wfv1.Parameter{Name: "class"})
	}
	manifest, err := emit.Document(map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1",
		"kind":       "VolumeSnapshot",
		"metadata": map[string]any{
			"generateName": fromInput("claim") + "-",
			"namespace":    fromInput("namespace"),
			"labels":       map[string]string{labelManagedBy: "platc", labelPlatform: b.p.Platform.Name},
			"annotations":  map[string]string{"platc.io/application": fromInput("application")},
		},
		"spec": spec,
	})
	if err != nil {
		panic("emit/argo: VolumeSnapshot manifest: " + err.Error())
	}
	d := intstr.FromString(fromInput("timeout"))
	return wfv1.Template{
		Name:   name,
		Inputs: wfv1.Inputs{Parameters: inputs},
		Resource: &wfv1.ResourceTemplate{
			Action:           "create",
			Manifest:         string(manifest),
			SuccessCondition: "status.readyToUse == true",
		},
		ActiveDeadlineSeconds: &d,
	}
}

func (b *builder) deleteApplication() wfv1.Template {
	t := b.scriptTemplate(tmplDeleteApp, "delete-application",
		[]wfv1.Parameter{{Name: "application"}, {Name: "project"}, {Name: "policy"}, {Name: "timeout"}, {Name: "deadline"},
			{Name: "retry-limit"}, {Name: "retry-backoff"}, {Name: "retry-factor"}, {Name: "retry-cap"}},
		env("APP", "application", "PROJECT", "project", "POLICY", "policy", "TIMEOUT", "timeout"))
	t.ActiveDeadlineSeconds = deadlineFromInput()
	t.RetryStrategy = retryFromInputs()
	return t
}

func (b *builder) checkConfirmation() wfv1.Template {
	t := b.scriptTemplate(tmplConfirm, "check-confirmation",
		[]wfv1.Parameter{{Name: "confirm"}, param("platform", b.p.Platform.Name)},
		env("CONFIRM", "confirm", "PLATFORM", "platform"))
	t.ActiveDeadlineSeconds = deadline(shortDeadline)
	return t
}

const longDeadline = 30 * 60

// keepJSON lists the Applications that outlive a teardown by design: the
// one that delivers these templates.
const keepJSON = `["` + WorkflowsApplication + `"]`

// suspendParents switches the app-of-apps that manage the platform's
// Applications to manual sync. chunked: the list of Applications is too
// long for one environment variable, and the step takes what the
// find-parents step of each chunk found instead (see appChunks).
func (b *builder) suspendParents(chunked bool) wfv1.Template {
	inputs := []wfv1.Parameter{{Name: "applications"}, {Name: "projects"}}
	vars := env("APPLICATIONS", "applications", "PROJECTS", "projects")
	if chunked {
		inputs = append(inputs, wfv1.Parameter{Name: "found"}, wfv1.Parameter{Name: "managing"})
		vars = append(vars, env("FOUND", "found", "MANAGING", "managing")...)
	}
	t := b.scriptTemplate(tmplSuspend, "suspend-parents", inputs, vars)
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("parents", "/tmp/parents", "[]")}
	t.ActiveDeadlineSeconds = deadline(longDeadline)
	t.RetryStrategy = fixedRetry()
	return t
}

// findParents is suspend-parents' search over one chunk of the
// Applications, which suspends nothing: its outputs are what the
// suspend-parents step of a chunked list reads.
func (b *builder) findParents() wfv1.Template {
	t := b.scriptTemplate(tmplFindParents, "suspend-parents",
		[]wfv1.Parameter{{Name: "applications"}, {Name: "projects"}, param("find-only", "1")},
		env("APPLICATIONS", "applications", "PROJECTS", "projects", "FIND_ONLY", "find-only"))
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("candidates", "/tmp/candidates", "[]"), outputFile("managing", "/tmp/managing", "[]")}
	t.ActiveDeadlineSeconds = deadline(longDeadline)
	t.RetryStrategy = fixedRetry()
	return t
}

// orphanReport lists what a teardown left in the platform's projects.
// chunked: it reads the rows the orphan-rows step of each chunk wrote.
func (b *builder) orphanReport(chunked bool) wfv1.Template {
	inputs := []wfv1.Parameter{{Name: "applications"}, {Name: "projects"}, {Name: "ignore"}, param("keep", keepJSON)}
	vars := env("APPLICATIONS", "applications", "PROJECTS", "projects", "IGNORE", "ignore", "KEEP", "keep")
	if chunked {
		inputs = append(inputs, wfv1.Parameter{Name: "rows"})
		vars = append(vars, env("ROWS", "rows")...)
	}
	t := b.scriptTemplate(tmplOrphans, "orphan-report", inputs, vars)
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("orphans", "/tmp/orphans", "[]")}
	t.ActiveDeadlineSeconds = deadline(longDeadline)
	return t
}

// orphanRows is orphan-report's listing for one chunk of the
// Applications, marking those of the chunk; it reports nothing.
func (b *builder) orphanRows() wfv1.Template {
	t := b.scriptTemplate(tmplOrphanRows, "orphan-report",
		[]wfv1.Parameter{{Name: "applications"}, {Name: "projects"}, param("rows-only", "1")},
		env("APPLICATIONS", "applications", "PROJECTS", "projects", "ROWS_ONLY", "rows-only"))
	t.Outputs.Parameters = []wfv1.Parameter{outputFile("rows", "/tmp/rows", "[]")}
	t.ActiveDeadlineSeconds = deadline(longDeadline)
	return t
}

// clusterTemplate is templates.yaml: every step, in one
// ClusterWorkflowTemplate that deploy, teardown and validate reference.
func (b *builder) clusterTemplate() *wfv1.ClusterWorkflowTemplate {
	chunked := len(appChunks(b.p.Apps)) > 1
	templates := []wfv1.Template{
		b.syncAndWait(), b.checkHealthy(), b.checkAbsent(),
		b.deleteAndWait(), b.inspectVolumes(), b.snapshotVolume(), b.deleteApplication(),
		b.snapshotVolumes(), b.findClaims(len(b.p.Apps)), b.snapshotVolumeOfClass(),
		b.checkConfirmation(), b.suspendParents(chunked), b.orphanReport(chunked),
	}
	if chunked {
		templates = append(templates, b.findParents(), b.orphanRows())
	}
	if waitsForResources(b.p.Apps) {
		templates = append(templates, b.waitResource())
	}
	return &wfv1.ClusterWorkflowTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "ClusterWorkflowTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: ClusterTemplate, Labels: b.labels("")},
		Spec:       wfv1.WorkflowSpec{Templates: templates},
	}
}

// ref points a task at a ClusterTemplate template.
func ref(template string) *wfv1.TemplateRef {
	return &wfv1.TemplateRef{Name: ClusterTemplate, Template: template, ClusterScope: true}
}
