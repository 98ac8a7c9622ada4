package executor

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/platc/platc/compiler/ir"
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
	AnnotationSpan   = "platc.io/span-id"
)

// Names of what platc build generates in the workflows namespace, as the
// Argo Workflows emitter defines them.
const (
	DeployTemplate   = argo.DeployTemplate
	TeardownTemplate = argo.TeardownTemplate
	ValidateTemplate = argo.ValidateTemplate
	StepsTemplate    = argo.ClusterTemplate // ClusterWorkflowTemplate
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

// stamp names and labels a Workflow for this run.
func stamp(wf *wfv1.Workflow, cfg *config.Config) {
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
	if cfg.TraceID != "" || cfg.SpanID != "" {
		if wf.Annotations == nil {
			wf.Annotations = map[string]string{}
		}
		if cfg.TraceID != "" {
			wf.Annotations[AnnotationTrace] = cfg.TraceID
		}
		if cfg.SpanID != "" {
			wf.Annotations[AnnotationSpan] = cfg.SpanID
		}
	}
}

func toUnstructured(wf *wfv1.Workflow) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(wf)
	if err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	u := &unstructured.Unstructured{Object: m}
	// A typed Workflow always carries an empty status; the API server
	// would drop it, but a dry run prints it, so leave it out.
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

func fromUnstructured(u *unstructured.Unstructured) (*wfv1.Workflow, error) {
	var wf wfv1.Workflow
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &wf); err != nil {
		return nil, fmt.Errorf("decode workflow %s: %w", u.GetName(), err)
	}
	if len(wf.Status.Nodes) == 0 && wf.Status.CompressedNodes != "" {
		nodes, err := decompressNodes(wf.Status.CompressedNodes)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: compressed node status: %w", wf.Name, err)
		}
		wf.Status.Nodes = nodes
	}
	return &wf, nil
}

// decompressNodes reads status.compressedNodes, which the workflow
// controller writes instead of status.nodes for large workflows
// (base64 of gzip of the JSON node map).
func decompressNodes(s string) (wfv1.Nodes, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return nil, err
	}
	var nodes wfv1.Nodes
	return nodes, json.Unmarshal(b, &nodes)
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
		wf, err := fromUnstructured(&list.Items[i])
		if err != nil {
			return nil, err
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
		if newest == nil || newest.CreationTimestamp.Before(&wf.CreationTimestamp) {
			newest = wf
		}
	}
	return newest, nil
}

// nodeState is one app's task in a followed workflow.
type nodeState struct {
	App        string
	Phase      wfv1.NodePhase
	Message    string
	StartedAt  time.Time
	FinishedAt time.Time
	Node       string // node name, for the failure report
	// Outputs are the node's output parameters.
	Outputs map[string]string
}

func outputsOf(n wfv1.NodeStatus) map[string]string {
	if n.Outputs == nil || len(n.Outputs.Parameters) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, p := range n.Outputs.Parameters {
		if p.Value != nil {
			out[p.Name] = p.Value.String()
		}
	}
	return out
}

// appNodes picks, for every app task of the workflow, its node: the node
// whose display name is the task name (the app name). A task with a
// retry strategy has a Retry node of that name whose children are the
// attempts ("app(0)", "app(1)"); its message is taken from the last
// attempt, which says why it failed.
func appNodes(wf *wfv1.Workflow, apps map[string]bool) map[string]nodeState {
	out := map[string]nodeState{}
	for _, n := range wf.Status.Nodes {
		if !apps[n.DisplayName] || n.Type == wfv1.NodeTypeDAG || n.Type == wfv1.NodeTypeSteps {
			continue
		}
		st := nodeState{App: n.DisplayName, Phase: n.Phase, Message: n.Message, StartedAt: n.StartedAt.Time, FinishedAt: n.FinishedAt.Time, Node: n.Name}
		if n.Type == wfv1.NodeTypeRetry && len(n.Children) > 0 {
			last := wf.Status.Nodes[n.Children[len(n.Children)-1]]
			if last.Message != "" && (n.Phase == wfv1.NodeFailed || n.Phase == wfv1.NodeError) {
				st.Message = strings.TrimSpace(last.Message + attempts(n.Message, len(n.Children)))
				st.Node = last.Name
			}
		}
		if prev, ok := out[n.DisplayName]; ok && prev.StartedAt.After(st.StartedAt) {
			continue
		}
		out[n.DisplayName] = st
	}
	return out
}

func attempts(retryMsg string, n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (after %d attempts)", n)
}

// deadlineMessages are the node messages the workflow controller writes
// when the workflow's activeDeadlineSeconds runs out (argo-workflows
// v3.7 workflow/controller/operator.go and exec_control.go), as opposed to
// one step's own timeout, which is that step's failure.
var deadlineMessages = regexp.MustCompile(`Step exceeded its deadline|retry exceeded workflow deadline`)

// timedOut reports whether a finished workflow failed because its own
// deadline ran out.
func timedOut(wf *wfv1.Workflow) bool {
	if deadlineMessages.MatchString(wf.Status.Message) {
		return true
	}
	for _, n := range wf.Status.Nodes {
		if (n.Phase == wfv1.NodeFailed || n.Phase == wfv1.NodeError) && deadlineMessages.MatchString(n.Message) {
			return true
		}
	}
	if d := wf.Spec.ActiveDeadlineSeconds; d != nil && !wf.Status.StartedAt.IsZero() && !wf.Status.FinishedAt.IsZero() {
		return wf.Status.FinishedAt.Sub(wf.Status.StartedAt.Time) >= time.Duration(*d)*time.Second
	}
	return false
}

// otherFailures are the failed steps of a workflow that are not an app's
// task: a scoped workflow's check that an outside dependency is Healthy,
// teardown's confirmation or orphan report. Attempts of a retried task are
// left out; their task reports them.
func otherFailures(wf *wfv1.Workflow, apps map[string]bool) []nodeState {
	attempt := map[string]bool{}
	for _, n := range wf.Status.Nodes {
		if n.Type == wfv1.NodeTypeRetry {
			for _, c := range n.Children {
				attempt[c] = true
			}
		}
	}
	var out []nodeState
	for id, n := range wf.Status.Nodes {
		if apps[n.DisplayName] || attempt[id] || n.Type == wfv1.NodeTypeDAG || n.Type == wfv1.NodeTypeSteps || n.Type == wfv1.NodeTypeStepGroup ||
			(n.Phase != wfv1.NodeFailed && n.Phase != wfv1.NodeError) {
			continue
		}
		out = append(out, nodeState{App: n.DisplayName, Phase: n.Phase, Message: n.Message, StartedAt: n.StartedAt.Time, FinishedAt: n.FinishedAt.Time, Node: n.Name, Outputs: outputsOf(n)})
	}
	slices.SortFunc(out, func(a, b nodeState) int { return strings.Compare(a.Node, b.Node) })
	return out
}

// followResult is how following a workflow ended.
type followResult struct {
	WF       *wfv1.Workflow
	Nodes    map[string]nodeState
	Others   []nodeState // failed steps that are not app tasks
	TimedOut bool        // platc's own limit ran out before the workflow finished
	Gone     bool        // the workflow was deleted while platc followed it
	Err      error
}

// followAndRecord follows wf to its end or its deadline and records the
// workflow, with its final phase and message, in the report.
func (r *run) followAndRecord(ctx context.Context, wf *wfv1.Workflow, apps []*ir.App, attached bool) followResult {
	res := r.follow(ctx, wf, apps, r.start.Add(r.timeout(r.deadlineOf(ctx, wf))))
	r.rep.Workflow = &WorkflowInfo{Name: wf.Name, Namespace: wf.Namespace, Attached: attached}
	if res.WF != nil {
		r.rep.Workflow.Phase = string(res.WF.Status.Phase)
		r.rep.Workflow.Message = r.log.Scrub(res.WF.Status.Message)
	}
	return res
}

// follow polls the workflow until it finishes, logging each app's node
// as its phase changes, or until deadline. Transient API errors are
// retried; the API being gone for longer than maxOutage ends the wait.
func (r *run) follow(ctx context.Context, wf *wfv1.Workflow, apps []*ir.App, deadline time.Time) followResult {
	names := map[string]bool{}
	for _, a := range apps {
		names[a.Name] = true
	}
	seen := map[string]wfv1.NodePhase{}
	lastOK := r.now()
	var wfPhase wfv1.WorkflowPhase
	var wfMessage string
	// A workflow the controller has not touched after a dozen polls (a
	// minute at the default interval) usually means no controller runs.
	pickup, warned := r.now().Add(12*r.env.PollInterval), false
	var cur = wf
	for {
		cctx, cancel := r.client.Call(ctx)
		u, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(wf.Namespace).Get(cctx, wf.Name, metav1.GetOptions{})
		cancel()
		switch {
		case apierrors.IsNotFound(err):
			return followResult{WF: cur, Nodes: appNodes(cur, names), Gone: true}
		case err != nil:
			if r.now().Sub(lastOK) > r.maxOutage() {
				return followResult{WF: cur, Nodes: appNodes(cur, names), Err: fmt.Errorf("lost the Kubernetes API for over %s while following workflow %s: %s", r.maxOutage(), wf.Name, r.client.Explain(err))}
			}
			r.log.Warnf(r.phase, "workflow", "reading workflow %s failed, retrying: %s", wf.Name, r.client.Explain(err))
		default:
			lastOK = r.now()
			if cur, err = fromUnstructured(u); err != nil {
				return followResult{WF: wf, Err: err}
			}
			// The message matters while Pending: it says what the workflow
			// waits for (the platform's mutex held by another run, say).
			if cur.Status.Phase != wfPhase || cur.Status.Message != wfMessage {
				wfPhase, wfMessage = cur.Status.Phase, cur.Status.Message
				if wfPhase != "" {
					msg := ""
					if wfMessage != "" {
						msg = ": " + r.log.Scrub(wfMessage)
					}
					r.log.Infof(r.phase, "workflow", "workflow %s is %s%s", cur.Name, wfPhase, msg)
				}
			}
			if cur.Status.Phase == "" && !warned && r.now().After(pickup) {
				warned = true
				r.log.Warnf(r.phase, "workflow", "workflow %s has not been picked up by the workflow controller yet; is the Argo Workflows controller running in the cluster?", cur.Name)
			}
			nodes := appNodes(cur, names)
			r.progress(apps, nodes, seen)
			if cur.Status.Phase.Completed() {
				others := otherFailures(cur, names)
				for _, o := range others {
					r.log.Errorf(r.phase, o.App, "step %s %s: %s", o.Node, strings.ToLower(string(o.Phase)), r.log.Scrub(orText(o.Message, "no message")))
				}
				return followResult{WF: cur, Nodes: nodes, Others: others}
			}
		}
		if !r.now().Before(deadline) {
			return followResult{WF: cur, Nodes: appNodes(cur, names), TimedOut: true}
		}
		select {
		case <-ctx.Done():
			return followResult{WF: cur, Nodes: appNodes(cur, names), Err: ctx.Err()}
		case <-time.After(r.env.PollInterval):
		}
	}
}

func (r *run) maxOutage() time.Duration {
	if d := 8 * r.env.PollInterval; d > 2*time.Minute {
		return d
	}
	return 2 * time.Minute
}

// progress logs every app whose node changed phase since the last poll,
// in deploy order, with a running count.
func (r *run) progress(apps []*ir.App, nodes map[string]nodeState, seen map[string]wfv1.NodePhase) {
	changed := false
	for _, a := range apps {
		n, ok := nodes[a.Name]
		if !ok || seen[a.Name] == n.Phase {
			continue
		}
		seen[a.Name] = n.Phase
		changed = true
		switch n.Phase {
		case wfv1.NodePending:
			r.log.Debugf(r.phase, a.Name, "pending")
		case wfv1.NodeRunning:
			r.log.Infof(r.phase, a.Name, "running")
		case wfv1.NodeSucceeded:
			r.log.Infof(r.phase, a.Name, "succeeded in %s", human(n.FinishedAt.Sub(n.StartedAt)))
		case wfv1.NodeSkipped:
			r.log.Infof(r.phase, a.Name, "skipped: %s", orText(n.Message, "nothing to do"))
		case wfv1.NodeOmitted:
			r.log.Warnf(r.phase, a.Name, "not run: a dependency did not succeed (node Omitted)")
		case wfv1.NodeFailed, wfv1.NodeError:
			r.log.Errorf(r.phase, a.Name, "%s after %s: %s", strings.ToLower(string(n.Phase)), human(n.FinishedAt.Sub(n.StartedAt)), r.log.Scrub(orText(n.Message, "no message")))
		}
	}
	if changed {
		var done, failed, running int
		for _, a := range apps {
			switch nodes[a.Name].Phase {
			case wfv1.NodeSucceeded, wfv1.NodeSkipped:
				done++
			case wfv1.NodeFailed, wfv1.NodeError, wfv1.NodeOmitted:
				failed++
			case wfv1.NodeRunning:
				running++
			}
		}
		r.log.Infof(r.phase, "workflow", "progress: %d of %d apps done, %d running, %d failed or not run", done, len(apps), running, failed)
	}
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// human formats a duration for people as the platform language writes
// one ("1m20s", "45s", "10m"); clocks that disagree give no negative
// durations.
func human(d time.Duration) string { return ir.FormatDuration(max(d, 0)) }
