package argo

import (
	"encoding/json"
	"os"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/plan"
)

// Build skips building a workflow whole when its tasks, counted by
// taskNodes, and the nodes of its grouped apps DAG are already over the
// budget. That is sound only while they are a lower bound of the nodes
// of the workflow built whole: this builds deploy, teardown and
// validate whole, flat and grouped (a DAG that holds few tasks forces
// groups), on the shop (which waits for a resource) and on synthetic
// platforms, and compares.
func TestTaskNodesLowerBound(t *testing.T) {
	src, err := os.ReadFile("../../e2e/testdata/shop/platform.hcl")
	if err != nil {
		t.Fatal(err)
	}
	progs := map[string]*ir.Program{
		"shop":            source(t, string(src)),
		"synth-43":        synthetic(t, synth.Options{Apps: 43, Stacks: 11}),
		"synth-500-cross": synthetic(t, synth.Options{Apps: 500, CrossStack: true, Seed: 3}),
	}
	if !waitsForResources(progs["shop"].Apps) {
		t.Fatal("the shop has no resource wait any more; this test needs one")
	}
	for name, p := range progs {
		b := newBuilder(p)
		nc := newNodeCounter(b.clusterTemplate())
		g := plan.DeployGraph(p.Apps)
		for _, w := range []struct {
			name  string
			build func(*builder, plan.Limits) (*wfv1.WorkflowTemplate, error)
			g     *plan.Graph
			task  func(*ir.App) wfv1.DAGTask
			wait  func(*ir.Resource) wfv1.DAGTask
		}{
			{"deploy", (*builder).deploy, g, b.syncTask, b.waitTask},
			{"teardown", (*builder).teardown, g.Reversed(), b.deleteTask, nil},
			{"validate", (*builder).validate, plan.Independent(p.Apps), b.checkTask, nil},
		} {
			c, err := taskNodes(nc, w.g, w.task, w.wait)
			if err != nil {
				t.Fatal(err)
			}
			for _, tasks := range []int{MaxTasks, 5} {
				lim := limits(MaxTemplates - 2)
				lim.Tasks, lim.TopTasks = tasks, MaxTasks
				tmpl, err := w.build(b, lim)
				if err != nil {
					t.Fatalf("%s %s, %d tasks: %v", name, w.name, tasks, err)
				}
				nodes, err := nc.workflow(&tmpl.Spec)
				if err != nil {
					t.Fatal(err)
				}
				bound := c.apps + c.waitNodes
				if len(w.g.Apps) > tasks {
					bound += 3 // the apps DAG and two groups at least, as Build counts
				}
				if bound > nodes {
					t.Errorf("%s %s, %d tasks per DAG: taskNodes says at least %d nodes, the workflow holds %d", name, w.name, tasks, bound, nodes)
				}
			}
		}
	}
}

// objectBytes counts what json.Marshal would return, for every object
// Build returns, HTML-escaped characters included.
func TestObjectBytesIsMarshalLength(t *testing.T) {
	src, err := os.ReadFile("../../e2e/testdata/shop/platform.hcl")
	if err != nil {
		t.Fatal(err)
	}
	p := source(t, string(src))
	// A split build, so children are measured too.
	p.Platform.Workflows.NodeBudget = 40
	o, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	objs := append(o.all(), map[string]string{"html": "<&>"})
	for _, obj := range objs {
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		got, err := objectBytes(obj)
		if err != nil {
			t.Fatal(err)
		}
		if kind, name := kindName(obj); got != len(data) {
			t.Errorf("%s %s: objectBytes %d, json.Marshal %d bytes", kind, name, got, len(data))
		}
	}
	if len(o.Children) == 0 {
		t.Error("the shop at a budget of 40 did not split; this test wants children")
	}
}
