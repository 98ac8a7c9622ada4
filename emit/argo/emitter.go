package argo

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/plan"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Emitter writes generated/<env>/workflows/.
type Emitter struct{}

// Name is the output area, "workflows".
func (Emitter) Name() string { return "workflows" }

// Objects are the Argo Workflows objects of generated/<env>/workflows/,
// typed: what Emit renders, and what the executor compares with the
// cluster's templates.
type Objects struct {
	ClusterTemplate            *wfv1.ClusterWorkflowTemplate
	Deploy, Teardown, Validate *wfv1.WorkflowTemplate
	// Children are the child WorkflowTemplates of a workflow split over
	// the node budget, by the parent's name (DeployTemplate, …); nil
	// for a workflow that fits (see split.go).
	Children map[string][]*wfv1.WorkflowTemplate
	// Nodes is the most status nodes a Workflow of each template can
	// hold, by template name, children included (a parent's count does
	// not include its children's: they are Workflows of their own).
	Nodes map[string]int
	// RBAC are the Role, RoleBinding and (with snapshots) ClusterRole
	// objects of rbac.yaml.
	RBAC []any
	// Schedules are the CronWorkflows of schedules.yaml, one per
	// scheduled action; none without schedule blocks.
	Schedules []*wfv1.CronWorkflow
	// encoded is, when Emit built the objects, the compact JSON of each
	// WorkflowTemplate as the size check marshalled it, which render
	// decodes instead of marshalling it again: encoding the templates
	// twice was the most allocations of the checks at 10,000 apps. Build
	// keeps none: its objects outlive the check (the executor's, plan's).
	encoded map[*wfv1.WorkflowTemplate][]byte
}

// Template is the WorkflowTemplate called name (DeployTemplate,
// TeardownTemplate, ValidateTemplate or one of their children), or nil.
func (o *Objects) Template(name string) *wfv1.WorkflowTemplate {
	for _, t := range o.templates() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// templates are every WorkflowTemplate: each workflow, then its children.
func (o *Objects) templates() []*wfv1.WorkflowTemplate {
	var out []*wfv1.WorkflowTemplate
	for _, t := range []*wfv1.WorkflowTemplate{o.Deploy, o.Teardown, o.Validate} {
		out = append(out, t)
		out = append(out, o.Children[t.Name]...)
	}
	return out
}

// Build builds the objects for p. A *LimitError means the platform is
// past a real limit (object size, node budget): the user's to fix. Any
// other error means platc built something Argo would reject: a bug, or a
// platform beyond Argo's limits (tens of thousands of apps).
func Build(p *ir.Program) (*Objects, error) { return buildKeeping(p, false) }

// buildKeeping is Build, keeping the templates' JSON (Objects.encoded)
// when keep is set.
func buildKeeping(p *ir.Program, keep bool) (*Objects, error) {
	o, err := build(p, keep)
	var le *LimitError
	if errors.As(err, &le) && le.nodes > 0 {
		if b := workingBudget(p, le.nodes); b > 0 {
			le.Detail += fmt.Sprintf(" The least node_budget with which platc can lay this platform out is %d.", b)
		}
	}
	return o, err
}

// workingBudget is the least node budget above p's, up to nodes (the
// count of the Workflow that is over it), with which every workflow
// fits, or 0 if none found. A larger budget can change the layout, so
// the count alone does not say which budget works: each candidate is
// built. At most 16 are tried, evenly spaced, the last nodes itself.
func workingBudget(p *ir.Program, nodes int) int {
	budget := p.Platform.Workflows.NodeBudget
	if nodes <= budget {
		return 0
	}
	const tries = 16
	step := max(1, (nodes-budget+tries-1)/tries)
	for b := budget + step; ; b += step {
		b = min(b, nodes)
		q := *p
		q.Platform.Workflows.NodeBudget = b
		if _, err := build(&q, false); err == nil {
			return b
		}
		if b == nodes {
			return 0
		}
	}
}

func build(p *ir.Program, keep bool) (*Objects, error) {
	if p.Platform.Workflows.NodeBudget < 1 {
		return nil, fmt.Errorf("workflows: node budget %d (the compiler sets it; this is a platc bug)", p.Platform.Workflows.NodeBudget)
	}
	b := newBuilder(p)
	o := &Objects{ClusterTemplate: b.clusterTemplate(), Children: map[string][]*wfv1.WorkflowTemplate{}, Nodes: map[string]int{}}
	nc := newNodeCounter(o.ClusterTemplate)
	deployGraph := plan.DeployGraph(p.Apps)
	budget := p.Platform.Workflows.NodeBudget
	for _, w := range []struct {
		name  string
		dst   **wfv1.WorkflowTemplate
		build func(*builder, plan.Limits) (*wfv1.WorkflowTemplate, error)
		lim   plan.Limits
		// laid, when set, is lim as build lays the apps out in it:
		// deploy takes one task per resource waited for.
		laid func(plan.Limits) plan.Limits
		g    *plan.Graph
		task func(*ir.App) wfv1.DAGTask
		// wait is the task of a resource wait, for deploy.
		wait func(*ir.Resource) wfv1.DAGTask
		// params are the parent's parameters the children's tasks read.
		params []string
	}{
		{DeployTemplate, &o.Deploy, (*builder).deploy, Limits, func(l plan.Limits) plan.Limits { return plan.DeployLimits(p.Apps, l) }, deployGraph, b.syncTask, b.waitTask, []string{ParamConverged}},
		{TeardownTemplate, &o.Teardown, (*builder).teardown, Limits, nil, deployGraph.Reversed(), b.deleteTask, nil, []string{ParamVolumes}},
		{ValidateTemplate, &o.Validate, (*builder).validate, limits(MaxTemplates - 1), nil, plan.Independent(p.Apps), b.checkTask, nil, nil},
	} {
		var counts *taskCounts
		split := func() error {
			if counts == nil {
				c, err := taskNodes(nc, w.g, w.task, w.wait)
				if err != nil {
					return fmt.Errorf("workflows: %s: %w", w.name, err)
				}
				counts = &c
			}
			var err error
			if *w.dst, o.Children[w.name], err = b.splitWorkflow(nc, w.name, *counts, w.build, w.params); err != nil {
				return wrap(w.name, err)
			}
			return nil
		}
		// Every app's task and every resource wait is in the workflow at
		// least once, beside the apps DAG's node and those of its groups,
		// two at least: when they alone are over the budget, so is the
		// workflow, and building it whole would only be thrown away. They
		// are counted first only when the DAG would be grouped, where
		// plan's layout search makes that build costly (a flat DAG costs
		// little more to build than its tasks do to count), and not when
		// the layout is past Argo's limits, the error building it reports.
		if n := len(w.g.Apps); n > w.lim.Tasks && laidOut(w.lim, w.laid).Fit(n) == nil {
			c, err := taskNodes(nc, w.g, w.task, w.wait)
			if err != nil {
				return nil, fmt.Errorf("workflows: %s: %w", w.name, err)
			}
			if counts = &c; c.apps+c.waitNodes+3 > budget {
				if err := split(); err != nil {
					return nil, err
				}
				continue
			}
		}
		t, err := w.build(b, w.lim)
		if err != nil {
			return nil, fmt.Errorf("workflows: %s: %w", w.name, err)
		}
		n, err := nc.workflow(&t.Spec)
		if err != nil {
			return nil, fmt.Errorf("workflows: %s: %w", w.name, err)
		}
		if n > budget {
			if err := split(); err != nil {
				return nil, err
			}
			continue
		}
		*w.dst, o.Nodes[w.name] = t, n
	}
	if err := checkNamespace(p.Platform.Workflows.Namespace); err != nil {
		return nil, fmt.Errorf("workflows: %w (the compiler should have rejected it; this is a platc bug)", err)
	}
	specs := []*wfv1.WorkflowSpec{&o.ClusterTemplate.Spec}
	for _, t := range o.templates() {
		specs = append(specs, &t.Spec)
	}
	for _, spec := range specs {
		if err := checkSpec(spec); err != nil {
			return nil, fmt.Errorf("workflows: %w (this is a platc bug)", err)
		}
	}
	for _, t := range o.templates() {
		if _, ok := o.Nodes[t.Name]; ok {
			continue // built whole, counted above and within the budget
		}
		n, err := nc.workflow(&t.Spec)
		if err != nil {
			return nil, fmt.Errorf("workflows: %s: %w", t.Name, err)
		}
		if n > p.Platform.Workflows.NodeBudget {
			return nil, budgetError(t.Name, n, p.Platform.Workflows.NodeBudget)
		}
		o.Nodes[t.Name] = n
	}
	o.RBAC = b.rbac(len(o.Children) > 0)
	o.Schedules = b.schedules()
	if err := o.checkSizes(keep); err != nil {
		return nil, err
	}
	if err := o.checkParams(); err != nil {
		return nil, err
	}
	return o, nil
}

// laidOut is lim narrowed by laid, when set.
func laidOut(lim plan.Limits, laid func(plan.Limits) plan.Limits) plan.Limits {
	if laid != nil {
		return laid(lim)
	}
	return lim
}

// splitWorkflow builds the workflow name as a parent of child workflows,
// each within the node budget, and returns the parent and the children;
// counts are its tasks' nodes (taskNodes). plan may
// choose many small groups when they finish sooner, and each is a node
// of the parent: while the parent is over the budget, the parent's DAG
// is allowed fewer groups by as many nodes as it is over.
func (b *builder) splitWorkflow(nc nodeCounter, name string, counts taskCounts, build func(*builder, plan.Limits) (*wfv1.WorkflowTemplate, error), params []string) (*wfv1.WorkflowTemplate, []*wfv1.WorkflowTemplate, error) {
	lim, err := b.splitLimits(counts, name)
	if err != nil {
		return nil, nil, err
	}
	budget := b.p.Platform.Workflows.NodeBudget
	var parent *wfv1.WorkflowTemplate
	var children []*wfv1.WorkflowTemplate
	for {
		s := &splitter{name: name, paramNames: params, tasks: counts.tasks}
		sb := *b
		sb.split = s
		next, err := build(&sb, lim)
		if err != nil {
			if parent != nil {
				// Fewer groups do not hold the apps: the last layout
				// stands, over the budget, and the caller reports it.
				return parent, children, nil
			}
			return nil, nil, err
		}
		parent, children = next, s.children
		n, err := nc.workflow(&parent.Spec)
		if err != nil {
			return nil, nil, err
		}
		groups := 0 // the DAG's children, not the snapshot ones
		for _, c := range children {
			if !strings.Contains(c.Name, SnapshotChildInfix) {
				groups++
			}
		}
		top := groups - (n - budget)
		if n <= budget || top < 1 {
			return parent, children, nil
		}
		lim.TopTasks = top
	}
}

// kindName are an object's kind and name, for messages.
func kindName(obj any) (kind, name string) {
	kind = "object"
	if m, ok := obj.(metav1.Object); ok {
		name = m.GetName()
	}
	if r, ok := obj.(runtime.Object); ok {
		kind = r.GetObjectKind().GroupVersionKind().Kind
	}
	return kind, name
}

// wrap prefixes err with the workflow's name unless it is a LimitError,
// which is reported as it is.
func wrap(name string, err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return err
	}
	return fmt.Errorf("workflows: %s: %w", name, err)
}

// all is every object Build returns.
func (o *Objects) all() []any {
	objs := []any{o.ClusterTemplate}
	for _, t := range o.templates() {
		objs = append(objs, t)
	}
	for _, s := range o.Schedules {
		objs = append(objs, s)
	}
	return append(objs, o.RBAC...)
}

// checkSizes checks every object against MaxObjectBytes; with keep, it
// keeps the WorkflowTemplates' JSON in o.encoded.
func (o *Objects) checkSizes(keep bool) error {
	if keep {
		o.encoded = map[*wfv1.WorkflowTemplate][]byte{}
	}
	for _, obj := range o.all() {
		var size int
		var err error
		if t, ok := obj.(*wfv1.WorkflowTemplate); ok && keep {
			var data []byte
			data, err = json.Marshal(t)
			size, o.encoded[t] = len(data), data
		} else {
			size, err = objectBytes(obj)
		}
		if err != nil {
			return fmt.Errorf("workflows: %w", err)
		}
		if size > MaxObjectBytes {
			kind, name := kindName(obj)
			return sizeError(kind, name, size)
		}
	}
	return nil
}

// Emit returns templates.yaml, deploy.yaml, teardown.yaml, validate.yaml,
// rbac.yaml and, with schedules, schedules.yaml, rendered from Build's
// objects.
func (Emitter) Emit(p *ir.Program) ([]emit.File, error) {
	o, err := buildKeeping(p, true)
	if err != nil {
		return nil, err
	}
	var files []emit.File
	for _, f := range []struct {
		path string
		objs []any
	}{
		{"workflows/templates.yaml", []any{o.ClusterTemplate}},
		{"workflows/deploy.yaml", o.file(o.Deploy)},
		{"workflows/teardown.yaml", o.file(o.Teardown)},
		{"workflows/validate.yaml", o.file(o.Validate)},
		{"workflows/rbac.yaml", o.RBAC},
	} {
		data, err := o.render(f.objs...)
		if err != nil {
			return nil, fmt.Errorf("workflows: %s: %w", f.path, err)
		}
		files = append(files, emit.File{Path: f.path, Data: data})
	}
	if len(o.Schedules) > 0 {
		objs := make([]any, len(o.Schedules))
		for i, s := range o.Schedules {
			objs[i] = s
		}
		data, err := o.render(objs...)
		if err != nil {
			return nil, fmt.Errorf("workflows: schedules.yaml: %w", err)
		}
		files = append(files, emit.File{Path: "workflows/schedules.yaml", Data: data})
	}
	return files, nil
}

// file is what the file of workflow t holds: t, then its children.
func (o *Objects) file(t *wfv1.WorkflowTemplate) []any {
	objs := []any{t}
	for _, c := range o.Children[t.Name] {
		objs = append(objs, c)
	}
	return objs
}

// render is emit.YAML after dropping the empty objects that Argo's typed
// templates cannot omit (a template's metadata, inputs and outputs, a
// task's arguments): noise that hides what matters in a review.
// The JSON of a WorkflowTemplate that o.encoded holds is decoded as it
// is (what emit.Tree does after marshalling); the entry is then dropped,
// its bytes free to go.
func (o *Objects) render(objs ...any) ([]byte, error) {
	clean := make([]any, len(objs))
	for i, obj := range objs {
		var m any
		var err error
		if t, ok := obj.(*wfv1.WorkflowTemplate); ok && o.encoded[t] != nil {
			if err = json.Unmarshal(o.encoded[t], &m); err != nil {
				err = fmt.Errorf("unmarshal %s: %w", t.Name, err)
			}
			delete(o.encoded, t)
		} else {
			m, err = emit.Tree(obj)
		}
		if err != nil {
			return nil, err
		}
		prune(m, "")
		// Nothing platc emits has a status; a typed Workflow's zero status
		// still marshals startedAt: null, which its CRD schema rejects.
		if obj, ok := m.(map[string]any); ok {
			delete(obj, "status")
		}
		clean[i] = m
	}
	return emit.YAMLTrees(clean...), nil
}

// noiseKeys are dropped when empty, below the object's own metadata.
var noiseKeys = map[string]bool{"metadata": true, "inputs": true, "outputs": true, "arguments": true}

// prune walks a decoded object; parent is the key it sits under ("" at
// the top). A script's container has no name of its own (Argo names it
// "main"), but the typed Container always carries the field.
func prune(v any, parent string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			prune(c, k)
			if m, ok := c.(map[string]any); ok && parent != "" && len(m) == 0 && noiseKeys[k] {
				delete(x, k)
			}
		}
		if parent == "script" && x["name"] == "" {
			delete(x, "name")
		}
	case []any:
		for _, c := range x {
			prune(c, parent)
		}
	}
}
