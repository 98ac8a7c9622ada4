package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
)

// Labels platc puts on the Workflows it submits, so a later run can find
// a run still in progress (statelessly: the cluster remembers, not platc).
const (
	LabelPlatform    = "platc.io/platform"
	LabelEnvironment = "platc.io/environment"
	LabelAction      = "platc.io/workflow" // the template it runs: deploy or teardown
	LabelScope       = "platc.io/scope"
	AnnotationTrace  = "platc.io/trace-id"
	AnnotationSpan   = "platc.io/span-id" // the executor's span: the Workflow's parent
	// AnnotationTraceparent is the two above as a W3C traceparent.
	AnnotationTraceparent = "platc.io/traceparent"
)

// Names of what platc build generates in the workflows namespace, as the
// Argo Workflows emitter defines them.
const (
	DeployTemplate   = argo.DeployTemplate
	TeardownTemplate = argo.TeardownTemplate
	ValidateTemplate = argo.ValidateTemplate
	StepsTemplate    = argo.ClusterTemplate // ClusterWorkflowTemplate
	// PruneAction labels the workflow that deletes removed apps.
	PruneAction = argo.PruneAction
)

// platformWorkflow is the Workflow that runs a whole-platform action: a
// reference to the WorkflowTemplate platc build generated, which Argo CD
// keeps in the cluster.
func platformWorkflow(cfg *config.Config, template string, params map[string]string) *wfv1.Workflow {
	wf := &wfv1.Workflow{
		TypeMeta: metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"},
		Spec:     wfv1.WorkflowSpec{WorkflowTemplateRef: &wfv1.WorkflowTemplateRef{Name: template}},
	}
	for _, k := range sortedKeys(params) {
		wf.Spec.Arguments.Parameters = append(wf.Spec.Arguments.Parameters, wfv1.Parameter{Name: k, Value: wfv1.AnyStringPtr(params[k])})
	}
	return wf
}

// sortedKeys returns m's keys in order, so the arguments of a workflow
// come out the same every time.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// stamp names and labels a Workflow for this run, and hands it the run's
// trace context.
func stamp(wf *wfv1.Workflow, cfg *config.Config, trace *Trace) {
	p := cfg.Program
	wf.TypeMeta = metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"}
	wf.Namespace = p.Platform.Workflows.Namespace
	if wf.Name == "" && wf.GenerateName == "" {
		wf.GenerateName = fmt.Sprintf("%s-%s-", p.Platform.Name, cfg.Action)
	}
	if wf.Labels == nil {
		wf.Labels = map[string]string{}
	}
	wf.Labels[LabelPlatform] = p.Platform.Name
	wf.Labels[LabelEnvironment] = p.Env.Name
	wf.Labels[LabelAction] = string(cfg.Action)
	wf.Labels[LabelScope] = cfg.Scope.Label()
	if tp := trace.Traceparent(); tp != "" {
		traceID, spanID := trace.IDs()
		if wf.Annotations == nil {
			wf.Annotations = map[string]string{}
		}
		wf.Annotations[AnnotationTrace] = traceID
		wf.Annotations[AnnotationSpan] = spanID
		wf.Annotations[AnnotationTraceparent] = tp
		// Every step pod gets the run's span as its parent, in the
		// variable OpenTelemetry's SDKs and tools read. A workflow-level
		// podSpecPatch reaches every pod without a change to the
		// templates Argo CD keeps in sync.
		wf.Spec.PodSpecPatch = tracePatch(tp)
	}
}

// tracePatch is the podSpecPatch that gives every step's main container
// TRACEPARENT=tp.
func tracePatch(tp string) string {
	b, _ := json.Marshal(map[string]any{"containers": []any{map[string]any{
		"name": "main", "env": []any{map[string]string{"name": "TRACEPARENT", "value": tp}},
	}}})
	return string(b)
}

var traceparentRE = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// isTracePatch says whether patch is exactly what tracePatch writes for
// some well-formed traceparent: the only podSpecPatch a run of the
// template may carry, since any other could change what the steps run.
func isTracePatch(patch string) bool {
	var p struct {
		Containers []struct {
			Env []struct{ Value string }
		}
	}
	if json.Unmarshal([]byte(patch), &p) != nil || len(p.Containers) != 1 || len(p.Containers[0].Env) != 1 {
		return false
	}
	tp := p.Containers[0].Env[0].Value
	return traceparentRE.MatchString(tp) && patch == tracePatch(tp)
}

// submit creates wf. With dryRun the API server validates it (schema,
// admission) and stores nothing.
func (r *run) submit(ctx context.Context, wf *wfv1.Workflow, dryRun bool) (*wfv1.Workflow, error) {
	u, err := toUnstructured(wf)
	if err != nil {
		return nil, err
	}
	opts := metav1.CreateOptions{FieldManager: "platc"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	created, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(wf.Namespace).Create(cctx, u, opts)
	if err != nil {
		return nil, err
	}
	return fromUnstructured(created)
}

// running finds a Workflow of this platform and action that has not
// finished and covers the same scope, so a second executor attaches to it
// instead of starting a competing run. Workflows created from the
// template by someone else (the bootstrap's last role, the Argo Events
// sensor, a person with the argo CLI) carry platc.io/workflow but no
// scope label, and the platform label only once the controller has
// applied the template's workflowMetadata: they run the whole platform of
// this namespace.
//
// The label alone proves nothing: anyone who can create Workflows there
// can set it. A Workflow is followed only when provenance finds it is a
// run of this platform's own template (or, scoped, of this platform,
// environment and scope); anything else, an undecodable one included, is
// reported and ignored, never fatal (issue 21).
func (r *run) running(ctx context.Context) (*wfv1.Workflow, error) {
	p := r.cfg.Program
	sel := fmt.Sprintf("%s=%s", LabelAction, r.cfg.Action)
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	list, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(p.Platform.Workflows.Namespace).List(cctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	want := r.cfg.Scope.Label()
	var newest *wfv1.Workflow
	for i := range list.Items {
		u := &list.Items[i]
		// Finished ones are not candidates, decodable or not.
		if u.GetLabels()[labelCompleted] == "true" || u.GetDeletionTimestamp() != nil {
			continue
		}
		wf, err := fromUnstructured(u)
		if err != nil {
			r.ignore(u.GetName(), "it cannot be decoded: "+err.Error())
			continue
		}
		if pl, ok := wf.Labels[LabelPlatform]; ok && pl != p.Platform.Name {
			continue
		}
		scope, ok := wf.Labels[LabelScope]
		if !ok {
			scope = "platform"
		}
		if scope != want || wf.Status.Phase.Completed() || wf.DeletionTimestamp != nil {
			continue
		}
		if why := r.provenance(ctx, wf); why != "" {
			r.ignore(wf.Name, why)
			continue
		}
		if newest == nil || newest.CreationTimestamp.Before(&wf.CreationTimestamp) {
			newest = wf
		}
	}
	return newest, nil
}

// labelCompleted is what the workflow controller sets on a finished
// Workflow.
const labelCompleted = "workflows.argoproj.io/completed"

// ignore reports a Workflow that carries this action's label but that
// platc cannot tell is a run of this platform's action.
func (r *run) ignore(name, why string) {
	why = r.log.Scrub(why)
	r.log.Warnf(r.phase, "workflow", "ignoring workflow %s labelled %s=%s: %s", name, LabelAction, r.cfg.Action, why)
	r.rep.IgnoredWorkflows = append(r.rep.IgnoredWorkflows, IgnoredWorkflow{Name: name, Reason: why})
}

// actionTemplate is the WorkflowTemplate a whole-platform run of the
// action uses.
func (r *run) actionTemplate() string {
	if r.cfg.Action == config.Teardown {
		return TeardownTemplate
	}
	return DeployTemplate
}

// allowedSpec are the spec fields a run of the template may set: what
// platc, the bootstrap, the sensor and 'argo submit --from' write, and
// what 'argo stop/terminate/suspend' add. Anything else overrides the
// template (a huge activeDeadlineSeconds, other steps), apart from the
// trace context's podSpecPatch (isTracePatch).
var allowedSpec = map[string]bool{"workflowTemplateRef": true, "arguments": true, "shutdown": true, "suspend": true}

// provenance says why wf is not a run of this platform's action, or ""
// when it is: for the whole platform, a Workflow that only references the
// platform's own WorkflowTemplate (labelled with the platform) in its
// namespace, with arguments; for a scope, one labelled with this
// platform, environment and scope, as stamp labels it.
func (r *run) provenance(ctx context.Context, wf *wfv1.Workflow) string {
	p := r.cfg.Program
	if env, ok := wf.Labels[LabelEnvironment]; ok && env != p.Env.Name {
		return fmt.Sprintf("it is labelled with environment %q, not %q", env, p.Env.Name)
	}
	if r.cfg.Scope.Kind != config.ScopePlatform {
		if wf.Labels[LabelPlatform] != p.Platform.Name || wf.Labels[LabelEnvironment] != p.Env.Name {
			return fmt.Sprintf("a scoped run must carry the %s and %s labels of this platform and environment", LabelPlatform, LabelEnvironment)
		}
		if wf.Spec.WorkflowTemplateRef != nil {
			return "a scoped run is compiled by platc, but it references a WorkflowTemplate"
		}
		// Labels are easy to forge: follow only a Workflow whose spec is
		// the one this platform source compiles for the scope, so that
		// whoever created it, following it is following platc's own run.
		return r.scopedDiffers(wf)
	}
	name := r.actionTemplate()
	if ref := wf.Spec.WorkflowTemplateRef; ref == nil || ref.ClusterScope || ref.Name != name {
		return fmt.Sprintf("it does not run WorkflowTemplate %s of this namespace", name)
	}
	if extra := specOverrides(wf); len(extra) > 0 {
		return fmt.Sprintf("it overrides the template's %s", strings.Join(extra, ", "))
	}
	if r.templateWhy == nil {
		why := ""
		switch t, err := r.template(ctx, name); {
		case err != nil:
			why = fmt.Sprintf("WorkflowTemplate %s cannot be read to check it: %s", name, r.client.Explain(err))
		case t.Labels[LabelPlatform] != p.Platform.Name:
			why = fmt.Sprintf("WorkflowTemplate %s is not labelled %s=%s", name, LabelPlatform, p.Platform.Name)
		}
		r.templateWhy = &why
	}
	return *r.templateWhy
}

// scopedDiffers says how wf's spec differs from the workflow this
// platform source compiles for the scope, or "" when it does not: apart
// from what a run of it may carry (arguments, argo stop and suspend, the
// trace patch).
func (r *run) scopedDiffers(wf *wfv1.Workflow) string {
	if r.scopedSpec == nil {
		want, err := scopedWorkflow(r.cfg, nil)
		if err != nil {
			return err.Error()
		}
		b, err := comparableSpec(want.Spec)
		if err != nil {
			return fmt.Sprintf("the scope's workflow cannot be encoded to compare: %v (this is a platc bug)", err)
		}
		r.scopedSpec = b
	}
	got, err := comparableSpec(wf.Spec)
	if err != nil {
		return "its spec cannot be encoded"
	}
	if !bytes.Equal(got, r.scopedSpec) {
		return fmt.Sprintf("its spec is not the workflow this platform source compiles for scope %s (another platform version, or not platc's)", r.cfg.Scope)
	}
	return ""
}

// comparableSpec is spec as JSON without what a run may set on its own.
func comparableSpec(spec wfv1.WorkflowSpec) ([]byte, error) {
	spec.Arguments = wfv1.Arguments{}
	spec.Shutdown, spec.Suspend = "", nil
	if isTracePatch(spec.PodSpecPatch) {
		spec.PodSpecPatch = ""
	}
	return json.Marshal(spec)
}

// specOverrides lists the spec fields wf sets beyond allowedSpec.
func specOverrides(wf *wfv1.Workflow) []string {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&wf.Spec)
	if err != nil {
		return []string{"spec (which cannot be encoded)"}
	}
	var out []string
	for k, v := range m {
		if e, ok := v.(map[string]any); ok && len(e) == 0 {
			continue // a zero struct the converter writes out
		}
		if k == "podSpecPatch" && isTracePatch(wf.Spec.PodSpecPatch) {
			continue
		}
		if !allowedSpec[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
