package argo

import (
	"fmt"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/plan"
)

// A workflow of workflows: when deploy, teardown or validate would hold
// more status nodes than the node budget (ir.Workflows.NodeBudget), its
// apps DAG becomes a DAG of child workflows. The parent keeps everything
// else (main, teardown's confirm, suspend and report steps, the mutex,
// the deadline); each task of its DAG creates a Workflow from one child
// WorkflowTemplate, one per group of plan's grouping, and waits for it to
// end. The parent's DAG is the group graph, so a failed child fails the
// parent and omits only the groups that wait for it. Each child holds one
// group's apps as a flat DAG, with the edges inside the group.

// tmplChild is the parent's template that runs one child workflow.
const tmplChild = "child-workflow"

// LabelParent is put on every child Workflow: the name of the parent
// Workflow that created it. Children are also owned by the parent
// (ownerReference), so deleting the parent deletes them.
const LabelParent = "platc.io/parent-workflow"

// splitter builds the parent and children of one workflow.
type splitter struct {
	// name is the parent WorkflowTemplate's name; children are name-01, …
	name string
	// params are the workflow parameters the children need from the
	// parent (teardown's volumes), declared and passed on as they are:
	// the parent's parameters named in paramNames (useParams).
	params     []wfv1.Parameter
	paramNames []string
	children   []*wfv1.WorkflowTemplate
	// childrenKey is the key of converged_children (resume.go).
	childrenKey string
	// tasks are the apps' tasks as Build counted them (taskCounts), laid
	// out instead of built again.
	tasks []wfv1.DAGTask
}

// layout is the templates of the parent's apps DAG (called name in the
// parent) over g as gr groups it, and, into s.children, the child
// templates. spec is the parent's spec so far, whose settings the
// children copy without its mutex: the parent holds it for them.
func (s *splitter) layout(b *builder, name string, g *plan.Graph, gr plan.Grouping, task func(*ir.App) wfv1.DAGTask, wait func(*ir.Resource) wfv1.DAGTask, spec wfv1.WorkflowSpec) ([]wfv1.Template, error) {
	s.useParams(spec)
	groupOf := make([]int, len(g.Apps))
	for k, members := range gr.Members {
		for _, i := range members {
			groupOf[i] = k
		}
	}
	counted := task
	if s.tasks != nil {
		counted = func(a *ir.App) wfv1.DAGTask { return s.tasks[a.Index] }
	}
	names := groupNames(s.name, len(gr.Members))
	top := wfv1.Template{Name: name, DAG: &wfv1.DAGTemplate{FailFast: continueAfterFailure()}}
	for k, members := range gr.Members {
		var deps []string
		for _, h := range gr.Waits[k] {
			deps = append(deps, names[h])
		}
		top.DAG.Tasks = append(top.DAG.Tasks, wfv1.DAGTask{
			Name: names[k], Template: tmplChild, Depends: strings.Join(deps, " && "),
			Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{value("template", names[k])}},
			When:      s.childWhen(g, names, gr.Members, k),
		})
		s.addChild(b, names[k], spec, appTasks(g, members, groupOf, k, counted, wait))
	}
	run, err := s.childTemplate(b)
	if err != nil {
		return nil, err
	}
	return []wfv1.Template{top, run}, nil
}

// snapshotChunk is the most apps one snapshot child lists: about 20 KB
// of JSON, far from what a pod's environment variable may hold (128 KiB)
// and a small part of an object.
const snapshotChunk = 200

// SnapshotChildInfix is in the name of a split teardown's snapshot
// children (teardown-snapshots-01, …), which hold no app.
const SnapshotChildInfix = "-snapshots-"

func (s *splitter) snapshotNames(n int) []string {
	return groupNames(s.name+strings.TrimSuffix(SnapshotChildInfix, "-"), n)
}

// snapshotChildren is the parent's step group that runs one snapshot
// child per snaps' step, all at once; it succeeds when every one did.
func (s *splitter) snapshotChildren(b *builder, snaps []wfv1.WorkflowStep) wfv1.ParallelSteps {
	run := wfv1.ParallelSteps{}
	for _, name := range s.snapshotNames(len(snaps)) {
		run.Steps = append(run.Steps, wfv1.WorkflowStep{Name: name, Template: tmplChild,
			Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{value("template", name)}}})
	}
	return run
}

// snapshotSpecs adds to s.children the snapshot children that
// snapshotChildren runs, each a DAG of its one snapshot step, with the
// parent's settings (spec) as the group children have them.
func (s *splitter) snapshotSpecs(b *builder, snaps []wfv1.WorkflowStep, spec wfv1.WorkflowSpec) {
	s.useParams(spec)
	for k, name := range s.snapshotNames(len(snaps)) {
		st := snaps[k]
		s.addChild(b, name, spec, []wfv1.DAGTask{{Name: st.Name, Template: st.Template, TemplateRef: st.TemplateRef, Arguments: st.Arguments}})
	}
}

// useParams sets s.params from the parent's spec, whose parameters are
// declared before its children are laid out.
func (s *splitter) useParams(spec wfv1.WorkflowSpec) {
	s.params = nil
	for _, p := range spec.Arguments.Parameters {
		if slices.Contains(s.paramNames, p.Name) {
			s.params = append(s.params, p)
		}
	}
}

// addChild adds to s.children the child WorkflowTemplate name whose one
// DAG runs tasks, with the parent's settings (spec) but not its mutex
// (the parent holds it) and with the parent's parameters the children need.
func (s *splitter) addChild(b *builder, name string, spec wfv1.WorkflowSpec, tasks []wfv1.DAGTask) {
	child := spec
	child.Entrypoint = tmplMain
	child.Synchronization = nil
	child.Arguments = wfv1.Arguments{Parameters: s.params}
	child.WorkflowMetadata = &wfv1.WorkflowMetadata{Labels: b.labels("")}
	child.Templates = []wfv1.Template{{Name: tmplMain, DAG: &wfv1.DAGTemplate{Tasks: tasks, FailFast: continueAfterFailure()}}}
	s.children = append(s.children, &wfv1.WorkflowTemplate{TypeMeta: templateTypeMeta, ObjectMeta: b.objectMeta(name, ""), Spec: child})
}

// childTemplate creates a Workflow from the child WorkflowTemplate named
// by its input and waits until it has ended: Succeeded is success,
// Failed or Error fails the task (and so the parent). The Workflow is
// owned by the parent, labelled with its name, and passes the parent's
// parameters on. The only values substituted into the manifest are
// platc's own names, the parent's name and parameters with an enum,
// which Argo checks at submission.
func (s *splitter) childTemplate(b *builder) (wfv1.Template, error) {
	spec := map[string]any{"workflowTemplateRef": map[string]any{"name": fromInput("template")}}
	if len(s.params) > 0 {
		var ps []map[string]string
		for _, p := range s.params {
			ps = append(ps, map[string]string{"name": p.Name, "value": passOn(p.Name)})
		}
		spec["arguments"] = map[string]any{"parameters": ps}
	}
	labels := b.labels("")
	labels[LabelParent] = "{{workflow.name}}"
	manifest, err := yaml.Marshal(map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Workflow",
		"metadata": map[string]any{
			"generateName": "{{workflow.name}}-" + fromInput("template") + "-",
			"namespace":    b.p.Platform.Workflows.Namespace,
			"labels":       labels,
		},
		"spec": spec,
	})
	if err != nil {
		return wfv1.Template{}, fmt.Errorf("child Workflow manifest: %w", err)
	}
	return wfv1.Template{
		Name:   tmplChild,
		Inputs: wfv1.Inputs{Parameters: []wfv1.Parameter{{Name: "template"}}},
		Resource: &wfv1.ResourceTemplate{
			Action:            "create",
			Manifest:          string(manifest),
			SetOwnerReference: true,
			SuccessCondition:  "status.phase == Succeeded",
			FailureCondition:  "status.phase in (Failed, Error)",
		},
	}, nil
}

// taskCounts are the status nodes of the tasks of one workflow's apps
// DAG, each task counted at worst: the most of one app's task (and that
// app), the sum over all apps, and, for a deploy, the resource waits,
// each counted once.
type taskCounts struct {
	worst            int
	worstApp         string
	apps             int
	waitNodes, waits int
	// tasks are the apps' tasks, by ir.App.Index: the same in the split
	// build, none of whose settings a task reads (task names are set
	// where tasks are laid out), which takes them from here.
	tasks []wfv1.DAGTask
}

// taskNodes counts the tasks of g's apps (task) and of the resources they
// wait for (wait, nil but for deploy), as Build's lower bound of the
// workflow's nodes and splitLimits' measure.
func taskNodes(nc nodeCounter, g *plan.Graph, task func(*ir.App) wfv1.DAGTask, wait func(*ir.Resource) wfv1.DAGTask) (taskCounts, error) {
	var c taskCounts
	top := 0
	for _, a := range g.Apps {
		top = max(top, a.Index+1)
	}
	c.tasks = make([]wfv1.DAGTask, top)
	for _, a := range g.Apps {
		t := task(a)
		n, err := nc.task(nil, &t)
		if err != nil {
			return taskCounts{}, err
		}
		c.tasks[a.Index] = t
		c.apps += n
		if n > c.worst {
			c.worst, c.worstApp = n, a.Name
		}
	}
	if wait == nil {
		return c, nil
	}
	seen := map[*ir.Resource]bool{}
	for _, a := range g.Apps {
		for _, rd := range a.ResourceDeps {
			if seen[rd.Resource] {
				continue
			}
			seen[rd.Resource] = true
			t := wait(rd.Resource)
			n, err := nc.task(nil, &t)
			if err != nil {
				return taskCounts{}, err
			}
			c.waitNodes += n
			c.waits++
		}
	}
	return c, nil
}

// splitLimits are the limits of plan's grouping for a split workflow
// whose tasks count c: each group a child whose nodes, each app's task
// counted at worst, stay within the budget, and at most MaxTasks
// children in the parent's DAG. A deploy's resource waits are tasks
// beside the apps' in every child whose apps wait for them, so, as
// plan.DeployLimits does for the tasks, every resource waited for takes
// its nodes from every child's budget, wherever it lands: counting a
// wait as one task, not as its retry node and attempts, made children
// one wait's worth over the budget (the shop at a budget of 22). A
// budget smaller than one app's task and the waits is a LimitError.
func (b *builder) splitLimits(c taskCounts, what string) (plan.Limits, error) {
	budget := b.p.Platform.Workflows.NodeBudget
	worst, worstApp, waitNodes, waits := c.worst, c.worstApp, c.waitNodes, c.waits
	// A child is its DAG's node, its waits and its apps' tasks.
	per := (budget - 1 - waitNodes) / max(worst, 1)
	if per < 1 {
		detail := fmt.Sprintf("The %s task of app %q can create %d status nodes (a retry node and one per attempt), more than the budget of %d nodes per Workflow minus one for the DAG.",
			what, worstApp, worst, budget)
		if waits > 0 {
			detail = fmt.Sprintf("The %s task of app %q can create %d status nodes (a retry node and one per attempt), and the %d resource waits a child may hold %d; with one for the DAG that is more than the budget of %d nodes per Workflow.",
				what, worstApp, worst, waits, waitNodes, budget)
		}
		return plan.Limits{}, &LimitError{
			Summary: fmt.Sprintf("Workflow node budget too small for %s", what),
			Detail:  fmt.Sprintf("%s Raise platform.workflows.node_budget to at least %d, or lower the app's retry limit.", detail, 1+waitNodes+worst),
		}
	}
	lim := limits(MaxTasks)
	// plan.DeployLimits takes one task per resource waited for from
	// Tasks; per apps remain.
	lim.Tasks = min(MaxTasks, per+waits)
	lim.TopTasks = MaxTasks
	return lim, nil
}

// budgetError is a workflow that holds more nodes than the budget.
func budgetError(name string, nodes, budget int) error {
	return &LimitError{
		nodes:   nodes,
		Summary: fmt.Sprintf("Workflow %s is over the node budget", name),
		Detail: fmt.Sprintf("A Workflow run from %s can hold %d status nodes, counted with every retry used, more than the budget of %d. platc splits deploy, teardown and validate into child workflows when they are over it; this one cannot be split further. Lower the apps' retry limits or split the platform.",
			name, nodes, budget),
	}
}

// sizeError is an object over MaxObjectBytes.
func sizeError(kind, name string, size int) error {
	return &LimitError{
		Summary: fmt.Sprintf("%s %s is too large", kind, name),
		Detail: fmt.Sprintf("As JSON it takes %d bytes, more than the %d platc allows per object (etcd refuses requests above 1.5 MiB, and kubectl apply's last-applied-configuration annotation and a Workflow's status need the rest). Shorten what the object repeats per app (names, parameters), or split the platform.",
			size, MaxObjectBytes),
	}
}

// A Layout is how Build laid out one of deploy, teardown and validate:
// one Workflow, or a parent and its children. platc plan prints it.
type Layout struct {
	// Name is the WorkflowTemplate's name; Nodes the most status nodes
	// its Workflow holds (a parent's own, without its children's).
	Name  string
	Nodes int
	// Children are the child workflows of a split one, in the parent's
	// topological order.
	Children []ChildLayout
}

// A ChildLayout is one child workflow: its WorkflowTemplate, its apps,
// its nodes and the children it waits for.
type ChildLayout struct {
	Name  string
	Apps  []string
	Nodes int
	Waits []string
	// Snapshots: a split teardown's snapshot child, run before the
	// apps DAG, which holds no app.
	Snapshots bool
}

// Layouts are the layouts of deploy, teardown and validate, in that
// order, with the largest object Build returns (its kind, name and
// bytes as JSON): what platc plan shows of the split.
func (o *Objects) Layouts() (out []Layout, largestKind, largestName string, largestBytes int, err error) {
	for _, t := range []*wfv1.WorkflowTemplate{o.Deploy, o.Teardown, o.Validate} {
		l := Layout{Name: t.Name, Nodes: o.Nodes[t.Name]}
		waits := map[string][]string{}
		for _, tmpl := range t.Spec.Templates {
			if tmpl.DAG == nil {
				continue
			}
			for _, task := range tmpl.DAG.Tasks {
				if task.Template == tmplChild {
					deps, err := parseDepends(task.Depends)
					if task.Depends != "" && err != nil {
						return nil, "", "", 0, err
					}
					waits[task.Name] = deps
				}
			}
		}
		for _, c := range o.Children[t.Name] {
			cl := ChildLayout{Name: c.Name, Nodes: o.Nodes[c.Name], Waits: waits[c.Name], Snapshots: strings.Contains(c.Name, SnapshotChildInfix)}
			cl.Apps = ChildApps(c)
			l.Children = append(l.Children, cl)
		}
		out = append(out, l)
	}
	for _, obj := range o.all() {
		size, err := objectBytes(obj)
		if err != nil {
			return nil, "", "", 0, err
		}
		if size > largestBytes {
			largestBytes = size
			largestKind, largestName = kindName(obj)
		}
	}
	return out, largestKind, largestName, largestBytes, nil
}

// SplitGroups are the apps of each child of o's deploy, in the parent's
// order (children after those they wait for), as plan.Simulate takes a
// nesting; nil when deploy is not split.
func SplitGroups(p *ir.Program, o *Objects) [][]*ir.App {
	var out [][]*ir.App
	for _, c := range o.Children[o.Deploy.Name] {
		var apps []*ir.App
		for _, task := range c.Spec.Templates[0].DAG.Tasks {
			// A task named after an app runs it; a resource wait's name
			// (Resource.TaskName) is no app's.
			if a := p.App(task.Name); a != nil && task.Template != tmplWaitResource && (task.TemplateRef == nil || task.TemplateRef.Template != tmplWaitResource) {
				apps = append(apps, a)
			}
		}
		out = append(out, apps)
	}
	return out
}
