package argo

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/plan"
)

// ScopedDeploy builds the Workflow the executor submits to deploy part of
// a platform (RFC 7: TARGET_SCOPE stack:<name> or app:<name>). It first
// checks that every app outside the scope that the scope depends on is
// Healthy (check-healthy, read-only), and only then deploys the scope's
// apps with the edges among them, exactly as the deploy template would
// (each app's step switches on its automated sync as it converges). It carries its own
// copy of the step templates, so it does not depend on the
// ClusterWorkflowTemplate in the cluster being current.
//
// scope is a set of apps of p (for a stack, Stack.Apps; for one app, that
// app); order does not matter. The Workflow has generateName, the
// platform's namespace and service account, and the deploy mutex.
func ScopedDeploy(p *ir.Program, scope []*ir.App) (*wfv1.Workflow, error) {
	return checkedSpot(scopedDeploy(p, scope))
}

// ScopedTeardown builds the Workflow the executor submits to tear down
// part of a platform. After the confirmation it checks that every app
// outside the scope that depends on the scope is already gone (nothing
// may be removed while its dependents exist), switches the app-of-apps
// to manual sync, and deletes the scope in exactly the reverse order.
// Like the teardown template it takes the parameters confirm and volumes;
// set confirm to the platform's name before submitting. It has no orphan
// report: that is about the whole platform.
//
// Both return a *LimitError for a workflow over a limit (checkSpot).
func ScopedTeardown(p *ir.Program, scope []*ir.App) (*wfv1.Workflow, error) {
	return checkedSpot(scopedTeardown(p, scope))
}

// spot is a workflow compiled on the spot, not yet checked against the
// limits, with what checkSpot needs to say about it.
type spot struct {
	wf           *wfv1.Workflow
	b            *builder
	action, what string
	apps         int
}

func checkedSpot(s *spot, err error) (*wfv1.Workflow, error) {
	if err != nil {
		return nil, err
	}
	if err := s.b.checkSpot(s.wf, s.action, s.what, s.apps); err != nil {
		return nil, err
	}
	return s.wf, nil
}

func scopedDeploy(p *ir.Program, scope []*ir.App) (*spot, error) {
	apps, outside, err := scopeOf(p, scope, func(a *ir.App) []*ir.App {
		deps := make([]*ir.App, len(a.Deps))
		for i, d := range a.Deps {
			deps[i] = d.App
		}
		return deps
	})
	if err != nil {
		return nil, err
	}
	b := newBuilder(p)
	b.inline = true
	var pre []wfv1.Template
	inline := []wfv1.Template{b.syncAndWait()}
	if waitsForResources(apps) {
		inline = append(inline, b.waitResource())
	}
	if len(outside) > 0 {
		checks, err := b.checks(outside, b.checkTask, MaxTemplates-6)
		if err != nil {
			return nil, err
		}
		pre = checks
		inline = append(inline, b.checkHealthy())
	}
	g := plan.DeployGraph(apps)
	gr, err := plan.Group(g, plan.DeployLimits(apps, limits(MaxTemplates-2-len(pre)-len(inline))))
	if err != nil {
		return nil, err
	}
	spec, err := b.deploySpec(g, gr, pre)
	if err != nil {
		return nil, err
	}
	spec.Templates = append(spec.Templates, inline...)
	return b.workflow("deploy", scope, apps, spec)
}

func scopedTeardown(p *ir.Program, scope []*ir.App) (*spot, error) {
	apps, outside, err := scopeOf(p, scope, func(a *ir.App) []*ir.App { return a.Dependents })
	if err != nil {
		return nil, err
	}
	b := newBuilder(p)
	b.inline = true
	var pre []wfv1.Template
	chunked := len(appChunks(apps)) > 1
	inline := []wfv1.Template{b.checkConfirmation(), b.suspendParents(chunked), b.deleteAndWait(), b.inspectVolumes(), b.deleteApplication()}
	if chunked {
		inline = append(inline, b.findParents())
	}
	if b.snapshotting(apps) {
		inline = append(inline, b.snapshotVolumes(), b.findClaims(len(apps)), b.snapshotVolume(), b.snapshotVolumeOfClass())
	}
	if len(outside) > 0 {
		checks, err := b.checks(outside, b.absentTask, MaxTemplates-10)
		if err != nil {
			return nil, err
		}
		pre = checks
		inline = append(inline, b.checkAbsent())
	}
	g := plan.DeployGraph(apps).Reversed()
	gr, err := plan.Group(g, limits(MaxTemplates-2-len(pre)-len(inline)))
	if err != nil {
		return nil, err
	}
	spec, err := b.teardownSpec(g, gr, pre, false)
	if err != nil {
		return nil, err
	}
	spec.Templates = append(spec.Templates, inline...)
	return b.workflow("teardown", scope, apps, spec)
}

// checks is the DAG of independent checks that runs before a scoped
// workflow touches anything.
func (b *builder) checks(apps []*ir.App, task func(*ir.App) wfv1.DAGTask, maxGroups int) ([]wfv1.Template, error) {
	g := plan.Independent(apps)
	gr, err := plan.Slices(g, limits(maxGroups))
	if err != nil {
		return nil, err
	}
	return dag(tmplChecks, g, gr, task, nil, nil), nil
}

// scopeOf sorts scope into dependency order and finds the apps outside
// it that next names (dependencies, or dependents), in dependency order.
func scopeOf(p *ir.Program, scope []*ir.App, next func(*ir.App) []*ir.App) (in, out []*ir.App, err error) {
	if len(scope) == 0 {
		return nil, nil, fmt.Errorf("empty scope: name at least one app")
	}
	inScope := map[*ir.App]bool{}
	for _, a := range scope {
		if a == nil || p.App(a.Name) != a {
			return nil, nil, fmt.Errorf("scope holds an app that is not part of this program")
		}
		if inScope[a] {
			return nil, nil, fmt.Errorf("app %q is in the scope twice", a.Name)
		}
		inScope[a] = true
		in = append(in, a)
	}
	byIndex := func(x, y *ir.App) int { return x.Index - y.Index }
	slices.SortFunc(in, byIndex)
	seen := map[*ir.App]bool{}
	for _, a := range in {
		for _, o := range next(a) {
			if !inScope[o] && !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	slices.SortFunc(out, byIndex)
	return in, out, nil
}

// workflow wraps a scoped spec and checks it for Argo's rules; checkSpot
// checks it against the limits.
func (b *builder) workflow(action string, scope, apps []*ir.App, spec wfv1.WorkflowSpec) (*spot, error) {
	what, name := describeScope(apps)
	wf := &wfv1.Workflow{
		TypeMeta: metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: generateName(action + "-" + name),
			Namespace:    b.p.Platform.Workflows.Namespace,
			Labels:       b.labels(action),
			Annotations:  map[string]string{"platc.io/scope": what},
		},
		Spec: spec,
	}
	wf.Spec.WorkflowMetadata = nil // the Workflow carries its labels itself
	if err := checkName("Workflow", wf.GenerateName, 63, true); err != nil {
		return nil, err
	}
	if err := checkSpec(&wf.Spec); err != nil {
		return nil, fmt.Errorf("scoped %s: %w (this is a platc bug)", action, err)
	}
	return &spot{wf: wf, b: b, action: action, what: what, apps: len(apps)}, nil
}

// checkSpot holds a workflow compiled on the spot to the limits Build
// holds the committed ones to: the node budget, MaxObjectBytes and
// MaxParamBytes, counted the same way. It is not split into child
// workflows as Build splits them: a committed parent runs child
// WorkflowTemplates that Argo CD deployed, and an on-the-spot run has no
// such templates in the cluster (docs/workflows.md). So a workflow over a
// limit is a LimitError here, which the executor reports before it
// submits anything, rather than the API server refusing it (bytes) or
// the controller holding thousands of nodes (the budget).
func (b *builder) checkSpot(wf *wfv1.Workflow, action, what string, apps int) error {
	nodes, err := newNodeCounter(b.clusterTemplate()).workflow(&wf.Spec)
	if err != nil {
		return fmt.Errorf("scoped %s: %w (this is a platc bug)", action, err)
	}
	size, err := objectBytes(wf)
	if err != nil {
		return fmt.Errorf("scoped %s: %w", action, err)
	}
	budget := b.p.Platform.Workflows.NodeBudget
	var over []string
	if nodes > budget {
		over = append(over, fmt.Sprintf("it can hold %d status nodes, counted with every retry used, more than the node budget of %d (platform.workflows.node_budget)", nodes, budget))
	}
	if size > MaxObjectBytes {
		over = append(over, fmt.Sprintf("as JSON it takes %d bytes, more than the %d platc allows per object (etcd refuses requests above 1.5 MiB, and the Workflow's status needs the rest)", size, MaxObjectBytes))
	}
	var limits []string
	if nodes > budget {
		limits = append(limits, "the node budget")
	}
	if size > MaxObjectBytes {
		limits = append(limits, "the object size limit")
	}
	var pe *LimitError
	if errors.As(checkSpecParams("Workflow", wf.GenerateName, &wf.Spec), &pe) {
		limits = append(limits, "the length of an environment variable")
		over = append(over, pe.over)
	}
	if len(over) == 0 {
		return nil
	}
	le := &LimitError{}
	if nodes > budget && len(limits) == 1 {
		// A larger budget alone would admit it.
		le.nodes = nodes
	}
	limit := english.List(limits)
	le.Summary = fmt.Sprintf("The %s workflow for %s is over %s", action, what, limit)
	le.Detail = fmt.Sprintf("The %s workflow compiled on the spot for %s (%d apps) cannot be submitted: %s. platc splits the workflows platc build commits into child workflows; a workflow compiled on the spot for one run is not split.",
		action, what, apps, strings.Join(over, "; and "))
	return le
}

// Nodes is, for a LimitError over the node budget and no other limit,
// the status nodes the Workflow can hold: the least budget that admits
// it. 0 otherwise.
func (e *LimitError) Nodes() int { return e.nodes }

// describeScope names a scope as TARGET_SCOPE would: stack:<name> when it
// is exactly one stack, app:<name> for one app, otherwise apps:<n>.
func describeScope(apps []*ir.App) (what, short string) {
	if len(apps) == 1 {
		return "app:" + apps[0].Name, apps[0].Name
	}
	if s := apps[0].Stack; s != nil && len(s.Apps) == len(apps) {
		same := true
		for _, a := range apps {
			same = same && a.Stack == s
		}
		if same {
			return "stack:" + s.Name, s.Name
		}
	}
	return fmt.Sprintf("apps:%d", len(apps)), "apps"
}

// generateName keeps the prefix within 58 characters so the name the API
// server completes stays within 63.
func generateName(prefix string) string {
	if len(prefix) > 57 {
		prefix = strings.TrimRight(prefix[:57], "-")
	}
	return prefix + "-"
}
