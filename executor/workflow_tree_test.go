package executor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	k8stesting "k8s.io/client-go/testing"

	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
)

// workflowObject is wf as the API server holds it, status included.
func workflowObject(t *testing.T, wf *wfv1.Workflow) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(wf)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("argoproj.io/v1alpha1")
	u.SetKind("Workflow")
	return u
}

func appNode(name string, phase wfv1.NodePhase, start time.Time) wfv1.NodeStatus {
	return wfv1.NodeStatus{ID: name, Name: "x." + name, DisplayName: name, Type: wfv1.NodeTypePod, Phase: phase,
		StartedAt: metav1.NewTime(start), FinishedAt: metav1.NewTime(start.Add(time.Minute))}
}

// TestTreeNodes: a parent split into child workflows (as emit/argo
// builds it for a platform over the node budget) reports its apps from
// the children it labelled, and only those: a child of another parent, or
// a workflow without children, adds nothing. An app in two children keeps
// the later node.
func TestTreeNodes(t *testing.T) {
	p := compileEnv(t, day1, "staging")
	// Three apps' deploy tasks per child: deploy has two children.
	p.Platform.Workflows.NodeBudget = 16
	o, err := argo.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Children[argo.DeployTemplate]) < 2 {
		t.Fatalf("deploy has %d children at a budget of 16", len(o.Children[argo.DeployTemplate]))
	}
	ns := p.Platform.Workflows.Namespace
	spec := o.Deploy.Spec
	children := o.Children[argo.DeployTemplate]
	last := children[len(children)-1]
	// The parent omitted its last child: that group's apps never ran.
	parent := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: "deploy-abcde", Namespace: ns},
		Status: wfv1.WorkflowStatus{Phase: wfv1.WorkflowFailed, StoredWorkflowSpec: &spec, Nodes: wfv1.Nodes{
			"omitted": {ID: "omitted", Name: "deploy-abcde.apps." + last.Name, DisplayName: last.Name, Type: wfv1.NodeTypeSkipped, Phase: wfv1.NodeOmitted},
		}}}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, second := p.Apps[0].Name, p.Apps[1].Name
	child := func(name, parentName string, nodes ...wfv1.NodeStatus) *wfv1.Workflow {
		wf := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{argo.LabelParent: parentName}},
			Status: wfv1.WorkflowStatus{Nodes: wfv1.Nodes{}}}
		for _, n := range nodes {
			wf.Status.Nodes[n.ID] = n
		}
		return wf
	}
	dc := fakeDynamic(
		workflowObject(t, parent),
		workflowObject(t, child("deploy-abcde-deploy-01-x", "deploy-abcde", appNode(first, wfv1.NodeFailed, t0))),
		// the same group again, after the parent was retried
		workflowObject(t, child("deploy-abcde-deploy-01-y", "deploy-abcde", appNode(first, wfv1.NodeSucceeded, t0.Add(time.Hour)))),
		workflowObject(t, child("deploy-abcde-deploy-02-x", "deploy-abcde", appNode(second, wfv1.NodeRunning, t0))),
		// another parent's child
		workflowObject(t, child("deploy-zzzzz-deploy-03-x", "deploy-zzzzz", appNode(p.Apps[2].Name, wfv1.NodeSucceeded, t0))),
	)
	r := testRun(t, config.Deploy, dc, func(c *config.Config) { c.Program, c.ScopeApps = p, p.Apps })
	names := map[string]bool{}
	for _, a := range p.Apps {
		names[a.Name] = true
	}
	nodes := r.treeNodes(context.Background(), parent, names)
	if got := nodes[first].Phase; got != wfv1.NodeSucceeded {
		t.Errorf("%s: %s, want the later child's Succeeded", first, got)
	}
	if got := nodes[second].Phase; got != wfv1.NodeRunning {
		t.Errorf("%s: %s, want Running", second, got)
	}
	if n := nodes[p.Apps[2].Name]; n.Phase == wfv1.NodeSucceeded {
		t.Errorf("%s: %+v from another parent's child", p.Apps[2].Name, n)
	}
	for _, task := range last.Spec.Templates[0].DAG.Tasks {
		if task.Name == first || task.Name == second {
			continue
		}
		if got := nodes[task.Name].Phase; got != wfv1.NodeOmitted {
			t.Errorf("%s, in omitted child %s: %q, want Omitted", task.Name, last.Name, got)
		}
	}
	// A failed child task is its apps' failure, not a step of its own.
	if o := r.withoutChildren([]nodeState{{App: last.Name}, {App: "check-confirmation"}}); len(o) != 1 || o[0].App != "check-confirmation" {
		t.Errorf("withoutChildren kept %+v", o)
	}
	// Not a split workflow: its own nodes only, no list.
	plain := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: "deploy-abcde", Namespace: ns}}
	if n := r.treeNodes(context.Background(), plain, names); len(n) != 0 {
		t.Errorf("a workflow without children has nodes %v", n)
	}
}

// TestDriftOfChildren: the drift check of a split workflow compares each
// child WorkflowTemplate too, and names the one that differs.
func TestDriftOfChildren(t *testing.T) {
	p := compileEnv(t, day1, "staging")
	p.Platform.Workflows.NodeBudget = 16
	o, err := argo.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	children := o.Children[argo.DeployTemplate]
	if len(children) < 2 {
		t.Fatalf("deploy has %d children", len(children))
	}
	var objs []runtime.Object
	for _, wt := range append([]*wfv1.WorkflowTemplate{o.Deploy}, children...) {
		c := wt.DeepCopy()
		if c.Name == children[1].Name {
			n := int64(99)
			c.Spec.Parallelism = &n
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("argoproj.io/v1alpha1")
		u.SetKind("WorkflowTemplate")
		objs = append(objs, u)
	}
	r := testRun(t, config.Deploy, fakeDynamic(objs...), func(c *config.Config) { c.Program, c.ScopeApps = p, p.Apps })
	r.checkDrift(context.Background(), argo.DeployTemplate)
	if len(r.rep.Recommend) != 1 || !strings.Contains(r.rep.Recommend[0], "WorkflowTemplate "+children[1].Name+" ") {
		t.Errorf("recommendations %q, want one naming %s", r.rep.Recommend, children[1].Name)
	}
}

// TestTreeNodesSkippedChild: a resume skips a child whose apps all had
// nothing to do (emit/argo resume.go); its Workflow is never created, and
// its apps report Skipped, not "not started".
func TestTreeNodesSkippedChild(t *testing.T) {
	p := compileEnv(t, day1, "staging")
	p.Platform.Workflows.NodeBudget = 16
	o, err := argo.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	children := o.Children[argo.DeployTemplate]
	if len(children) < 2 {
		t.Fatalf("deploy has %d children at a budget of 16", len(children))
	}
	ns := p.Platform.Workflows.Namespace
	spec := o.Deploy.Spec
	first := children[0]
	parent := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: "deploy-abcde", Namespace: ns},
		Status: wfv1.WorkflowStatus{Phase: wfv1.WorkflowRunning, StoredWorkflowSpec: &spec, Nodes: wfv1.Nodes{
			"skipped": {ID: "skipped", Name: "deploy-abcde.apps." + first.Name, DisplayName: first.Name, Type: wfv1.NodeTypeSkipped, Phase: wfv1.NodeSkipped},
		}}}
	r := testRun(t, config.Deploy, fakeDynamic(workflowObject(t, parent)), func(c *config.Config) { c.Program, c.ScopeApps = p, p.Apps })
	names := map[string]bool{}
	for _, a := range p.Apps {
		names[a.Name] = true
	}
	nodes := r.treeNodes(context.Background(), parent, names)
	n := 0
	for _, task := range first.Spec.Templates[0].DAG.Tasks {
		if p.App(task.Name) == nil {
			continue
		}
		n++
		got := nodes[task.Name]
		if got.Phase != wfv1.NodeSkipped || !strings.Contains(got.Message, "already converged") {
			t.Errorf("%s, in skipped child %s: %+v, want Skipped as converged", task.Name, first.Name, got)
		}
	}
	if n == 0 {
		t.Fatalf("child %s holds no app", first.Name)
	}
	for _, a := range childAppsOf(children[1]) {
		if _, ok := nodes[a]; ok {
			t.Errorf("%s, in a child that was not skipped, has a node: %+v", a, nodes[a])
		}
	}
}

func childAppsOf(c *wfv1.WorkflowTemplate) []string {
	var out []string
	for _, task := range c.Spec.Templates[0].DAG.Tasks {
		out = append(out, task.Name)
	}
	return out
}

// TestChildrenToStop is the decision: an ended parent stops the
// children it owns that still run and are not yet stopping; a running
// parent stops none, and a workflow that only carries the label (anyone
// who can write a Workflow can set it) is not touched.
func TestChildrenToStop(t *testing.T) {
	parent := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: "deploy-abcde", UID: "p-uid"}, Status: wfv1.WorkflowStatus{Phase: wfv1.WorkflowFailed}}
	child := func(name string, phase wfv1.WorkflowPhase, owner types.UID, shutdown wfv1.ShutdownStrategy) *wfv1.Workflow {
		return &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{argo.LabelParent: "deploy-abcde"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Workflow", Name: "deploy-abcde", UID: owner}}},
			Spec: wfv1.WorkflowSpec{Shutdown: shutdown}, Status: wfv1.WorkflowStatus{Phase: phase}}
	}
	children := []*wfv1.Workflow{
		child("c-done", wfv1.WorkflowSucceeded, "p-uid", ""),
		child("c-running", wfv1.WorkflowRunning, "p-uid", ""),
		child("c-pending", "", "p-uid", ""),
		child("c-stopping", wfv1.WorkflowRunning, "p-uid", wfv1.ShutdownStrategyStop),
		child("c-forged", wfv1.WorkflowRunning, "other-uid", ""),
	}
	stop, stopping := childrenToStop(parent, children)
	if strings.Join(stop, ",") != "c-pending,c-running" || strings.Join(stopping, ",") != "c-stopping" {
		t.Errorf("stop %v, stopping %v; want [c-pending c-running], [c-stopping]", stop, stopping)
	}
	running := parent.DeepCopy()
	running.Status.Phase = wfv1.WorkflowRunning
	if stop, stopping := childrenToStop(running, children); stop != nil || stopping != nil {
		t.Errorf("a running parent stops %v (%v): its children are its run's", stop, stopping)
	}
}

// TestStopEndedChildren: a split parent that ended (stopped, out of
// time) while a child it created still runs has that child stopped as
// 'argo stop' does, and the report names it; finished children and other
// parents' are left alone. Without the right to patch, platc warns with
// the command, and does not fail. The API is client-go's fake dynamic
// client (simulated: it has no RBAC, so Forbidden is injected); the
// e2e's TestWorkflowOfWorkflows stops a child on the real controller.
func TestStopEndedChildren(t *testing.T) {
	p := compileEnv(t, day1, "staging")
	p.Platform.Workflows.NodeBudget = 16
	o, err := argo.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	ns := p.Platform.Workflows.Namespace
	spec := o.Deploy.Spec
	parent := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: "deploy-abcde", Namespace: ns, UID: "p-uid"},
		Status: wfv1.WorkflowStatus{Phase: wfv1.WorkflowFailed, StoredWorkflowSpec: &spec}}
	child := func(name, parentName string, phase wfv1.WorkflowPhase) *unstructured.Unstructured {
		uid := types.UID("p-uid")
		if parentName != parent.Name {
			uid = "other-uid"
		}
		return workflowObject(t, &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{argo.LabelParent: parentName},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow", Name: parentName, UID: uid}}},
			Status: wfv1.WorkflowStatus{Phase: phase}})
	}
	objs := func() []runtime.Object {
		return []runtime.Object{workflowObject(t, parent),
			child("deploy-abcde-deploy-01-x", "deploy-abcde", wfv1.WorkflowSucceeded),
			child("deploy-abcde-deploy-02-x", "deploy-abcde", wfv1.WorkflowRunning),
			child("deploy-zzzzz-deploy-02-y", "deploy-zzzzz", wfv1.WorkflowRunning)}
	}
	shutdown := func(dc dynamic.Interface, name string) string {
		u, err := dc.Resource(cluster.Workflows).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, _, _ := unstructured.NestedString(u.Object, "spec", "shutdown")
		return s
	}
	dc := fakeDynamic(objs()...)
	r := testRun(t, config.Deploy, dc, func(c *config.Config) { c.Program, c.ScopeApps = p, p.Apps })
	stopped := r.stopEndedChildren(context.Background(), parent)
	if strings.Join(stopped, ",") != "deploy-abcde-deploy-02-x" {
		t.Errorf("stopped %v, want the running child deploy-abcde-deploy-02-x", stopped)
	}
	for name, want := range map[string]string{"deploy-abcde-deploy-02-x": "Stop", "deploy-abcde-deploy-01-x": "", "deploy-zzzzz-deploy-02-y": ""} {
		if got := shutdown(dc, name); got != want {
			t.Errorf("%s: spec.shutdown %q, want %q", name, got, want)
		}
	}
	if len(r.rep.Recommend) != 0 {
		t.Errorf("children stopped, yet: %v", r.rep.Recommend)
	}

	// Forbidden: the command, no failure.
	dc = fakeDynamic(objs()...)
	dc.PrependReactor("patch", "workflows", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "argoproj.io", Resource: "workflows"}, "deploy-abcde-deploy-02-x", errors.New("RBAC"))
	})
	r = testRun(t, config.Deploy, dc, func(c *config.Config) { c.Program, c.ScopeApps = p, p.Apps })
	if stopped := r.stopEndedChildren(context.Background(), parent); len(stopped) != 0 {
		t.Errorf("stopped %v without the right to", stopped)
	}
	rec := strings.Join(r.rep.Recommend, "\n")
	if !strings.Contains(rec, "argo stop -n "+ns+" -l "+argo.LabelParent+"=deploy-abcde") || !strings.Contains(rec, "may not patch workflows") {
		t.Errorf("recommendations %q do not say how to stop the children, or why platc did not", rec)
	}

	// Nothing running: nothing said or done.
	r = testRun(t, config.Deploy, fakeDynamic(workflowObject(t, parent), child("deploy-abcde-deploy-01-x", "deploy-abcde", wfv1.WorkflowSucceeded)),
		func(c *config.Config) { c.Program, c.ScopeApps = p, p.Apps })
	if stopped := r.stopEndedChildren(context.Background(), parent); len(stopped) != 0 || len(r.rep.Recommend) != 0 {
		t.Errorf("children all ended, yet stopped %v, recommended %v", stopped, r.rep.Recommend)
	}
}
