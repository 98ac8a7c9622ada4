package argo

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"

	"github.com/platc/platc/internal/synth"
)

// TestWithinLimits: at 43, 1,000, 5,000 and 10,000 apps, layered and
// with stacks that depend on each other both ways, every object Build
// returns is within MaxObjectBytes as JSON and every WorkflowTemplate's
// Workflow within the node budget, counted independently of Build (see
// countNodes). The big platforms split; the example does not.
func TestWithinLimits(t *testing.T) {
	for _, n := range []int{43, 1000, 5000, 10000} {
		for _, cross := range []bool{false, true} {
			name := fmt.Sprintf("%d-layered", n)
			if cross {
				name = fmt.Sprintf("%d-cross", n)
			}
			t.Run(name, func(t *testing.T) {
				if n >= 5000 && testing.Short() {
					t.Skip("big platform")
				}
				p := synthetic(t, synth.Options{Apps: n, CrossStack: cross})
				o, err := Build(p)
				if err != nil {
					t.Fatal(err)
				}
				budget := p.Platform.Workflows.NodeBudget
				var largest int
				var largestName string
				for _, tm := range o.templates() {
					size, err := objectBytes(tm)
					if err != nil {
						t.Fatal(err)
					}
					if size > largest {
						largest, largestName = size, tm.Name
					}
					if size > MaxObjectBytes {
						t.Errorf("%s: %d bytes", tm.Name, size)
					}
					nodes := countNodes(t, o, tm)
					if nodes > budget {
						t.Errorf("%s: %d nodes, budget %d", tm.Name, nodes, budget)
					}
					if nodes != o.Nodes[tm.Name] {
						t.Errorf("%s: %d nodes counted here, %d by Build", tm.Name, nodes, o.Nodes[tm.Name])
					}
				}
				apps := map[string]int{}
				for _, parent := range []string{DeployTemplate, TeardownTemplate, ValidateTemplate} {
					children := o.Children[parent]
					if n > 400 && len(children) < 2 {
						t.Errorf("%s: %d children; %d apps need a split", parent, len(children), n)
					}
					if n < 100 && children != nil {
						t.Errorf("%s: split at %d apps", parent, n)
					}
					for _, c := range children {
						if strings.Contains(c.Name, SnapshotChildInfix) {
							continue // holds no app
						}
						for _, task := range c.Spec.Templates[0].DAG.Tasks {
							apps[parent+"/"+task.Name]++
						}
					}
				}
				for k, c := range apps {
					if c != 1 {
						t.Errorf("%s runs %d times", k, c)
					}
				}
				t.Logf("%d apps: deploy %d children, teardown %d, validate %d; largest object %s, %d bytes",
					n, len(o.Children[DeployTemplate]), len(o.Children[TeardownTemplate]), len(o.Children[ValidateTemplate]), largestName, largest)
			})
		}
	}
}

// countNodes counts the nodes a Workflow of tm creates at worst, written
// apart from nodeCounter for the shapes platc emits: per app task, the
// Retry node and limit+1 attempts of its step (the teardown step: a steps
// node, two step groups, inspect and delete with their retries); a DAG
// node per DAG; steps and step-group nodes; the snapshot step; a pod per
// other template (suspend-parents with its fixed retries).
func countNodes(t *testing.T, o *Objects, tm *wfv1.WorkflowTemplate) int {
	t.Helper()
	// The snapshot step: a steps node, two step groups, find-claims with
	// its fixed retries (a Retry node over 3 attempts), and one node for
	// each of the two fan-outs.
	const snapshotNodes = 1 + 2 + (1 + 3) + 2
	limit := func(task wfv1.DAGTask) int {
		for _, p := range task.Arguments.Parameters {
			if p.Name == "retry-limit" {
				var n int
				fmt.Sscan(p.Value.String(), &n)
				return n
			}
		}
		// The default: the most common limit, from the cluster template.
		for _, ct := range o.ClusterTemplate.Spec.Templates {
			if ct.Name == tmplSyncAndWait {
				for _, in := range ct.Inputs.Parameters {
					if in.Name == "retry-limit" {
						var n int
						fmt.Sscan(in.Default.String(), &n)
						return n
					}
				}
			}
		}
		t.Fatal("no retry-limit")
		return 0
	}
	nodes := 0
	for _, tp := range tm.Spec.Templates {
		switch {
		case tp.Steps != nil:
			nodes++
			for _, g := range tp.Steps {
				nodes++ // the StepGroup
				for _, s := range g.Steps {
					switch {
					case s.TemplateRef == nil && s.Template == tmplChild:
						nodes++ // a snapshot child's resource pod
					case s.TemplateRef == nil:
						// a local DAG: its node is counted with its template
					case s.TemplateRef.Template == tmplSuspend:
						nodes += 1 + 3 // fixedRetry: a Retry node over 3 attempts
					case s.TemplateRef.Template == tmplSnapshots:
						nodes += snapshotNodes
					default:
						nodes++
					}
				}
			}
		case tp.DAG != nil:
			nodes++
			for _, task := range tp.DAG.Tasks {
				switch {
				case task.TemplateRef == nil:
					nodes++ // a group DAG (counted with its template) or a child's resource pod
					if task.Template != tmplChild {
						nodes--
					}
				case task.TemplateRef.Template == tmplSyncAndWait:
					nodes += 1 + limit(task) + 1
				case task.TemplateRef.Template == tmplDeleteAndWait:
					l := limit(task)
					nodes += 1 + 2 + 2*(1+l+1)
				case task.TemplateRef.Template == tmplSnapshots:
					nodes += snapshotNodes
				default:
					nodes++
				}
			}
		}
	}
	return nodes
}

// TestChildrenValid runs Argo's own validation on a split platform's
// parent and children, and checks the parent's DAG is the group graph.
func TestChildrenValid(t *testing.T) {
	p := synthetic(t, synth.Options{Apps: 1000, CrossStack: true})
	files := emitFiles(t, p)
	wfts, cwfts := objects(t, files)
	lint := validate.ValidateOpts{Lint: true}
	n := 0
	for name, wft := range wfts {
		if err := validate.ValidateWorkflowTemplate(wfts, cwfts, wft, nil, lint); err != nil {
			t.Errorf("WorkflowTemplate %s: %v", name, err)
		}
		n++
	}
	if n < 6 {
		t.Fatalf("%d WorkflowTemplates; want parents and children", n)
	}
	rbac := string(files["workflows/rbac.yaml"])
	if !strings.Contains(rbac, "- workflows") {
		t.Errorf("rbac.yaml does not let the parent create its children:\n%s", rbac)
	}
}

// TestNodeBudgetTooSmall: a budget below one app's task is the user's
// problem, a LimitError naming the app and the fix.
func TestNodeBudgetTooSmall(t *testing.T) {
	p := synthetic(t, synth.Options{Apps: 43})
	p.Platform.Workflows.NodeBudget = 3
	_, err := Build(p)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("Build = %v, want a LimitError", err)
	}
	if !strings.Contains(le.Detail, "node_budget") {
		t.Errorf("detail does not say how to fix it: %s", le.Detail)
	}
}

// TestObjectTooLarge: an object over MaxObjectBytes is a LimitError that
// names it and says what to do.
func TestObjectTooLarge(t *testing.T) {
	o, err := Build(synthetic(t, synth.Options{Apps: 43}))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.checkSizes(); err != nil {
		t.Fatalf("the 43-app platform: %v", err)
	}
	big := strings.Repeat("x", MaxObjectBytes)
	o.Teardown.Spec.Arguments.Parameters[0].Description = wfv1.AnyStringPtr(big)
	err = o.checkSizes()
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("checkSizes = %v, want a LimitError", err)
	}
	if !strings.Contains(le.Summary, "WorkflowTemplate teardown is too large") || !strings.Contains(le.Detail, "split the platform") {
		t.Errorf("LimitError %q: %q", le.Summary, le.Detail)
	}
}
