package argo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/plan"
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
				var allObjs []any
				for _, tm := range o.templates() {
					allObjs = append(allObjs, tm)
				}
				param, paramWhere := largestParam(t, append(allObjs, o.ClusterTemplate))
				// A resume's masks, every app and resource wait skipped:
				// the longest values the executor passes.
				mask := 0
				for name, v := range ConvergedArguments(p, o, func(*ir.App) bool { return true }, func(*ir.Resource) bool { return true }) {
					mask = max(mask, len(v))
					if len(v) > param {
						param, paramWhere = len(v), "the deploy's argument "+name
					}
				}
				if param > MaxParamBytes {
					t.Errorf("%s: %d bytes, more than a pod's environment variable may hold", paramWhere, param)
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
				t.Logf("%d apps: deploy %d children, teardown %d, validate %d; largest object %s, %d bytes; largest parameter %s, %d bytes; resume mask %d bytes (%d resource waits)",
					n, len(o.Children[DeployTemplate]), len(o.Children[TeardownTemplate]), len(o.Children[ValidateTemplate]), largestName, largest, paramWhere, param, mask, len(resourceOrder(p)))
			})
		}
	}
}

// largestParam finds, apart from checkParams, the longest value of a
// parameter or environment variable in objs: any JSON object with a name
// and a string value or default, wherever it is.
func largestParam(t *testing.T, objs []any) (int, string) {
	t.Helper()
	best, where := 0, ""
	var walk func(obj string, v any)
	walk = func(obj string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if name, ok := v["name"].(string); ok {
				for _, k := range []string{"value", "default"} {
					if s, ok := v[k].(string); ok && len(s) > best {
						best, where = len(s), obj+": "+name
					}
				}
			}
			for _, x := range v {
				walk(obj, x)
			}
		case []any:
			for _, x := range v {
				walk(obj, x)
			}
		}
	}
	for _, o := range objs {
		data, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		name, _ := v["metadata"].(map[string]any)["name"].(string)
		walk(name, v)
	}
	return best, where
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
					case s.TemplateRef.Template == tmplSuspend || s.TemplateRef.Template == tmplFindParents:
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

// TestParamTooLong: a value longer than a pod's environment variable
// may hold is a LimitError that names where it is.
func TestParamTooLong(t *testing.T) {
	o, err := Build(synthetic(t, synth.Options{Apps: 43}))
	if err != nil {
		t.Fatal(err)
	}
	if err := o.checkParams(); err != nil {
		t.Fatalf("the 43-app platform: %v", err)
	}
	task := &o.Deploy.Spec.Templates[len(o.Deploy.Spec.Templates)-1].DAG.Tasks[0]
	task.Arguments.Parameters = append(task.Arguments.Parameters, value("long", strings.Repeat("x", MaxParamBytes+1)))
	err = o.checkParams()
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("checkParams = %v, want a LimitError", err)
	}
	if !strings.Contains(le.Summary, "WorkflowTemplate deploy passes a value too long") || !strings.Contains(le.Detail, `"long" of task `+task.Name) || !strings.Contains(le.Detail, "E2BIG") {
		t.Errorf("LimitError %q: %q", le.Summary, le.Detail)
	}
}

// TestAppChunks: the chunks of a long list hold every name once, in
// order, each within listChunkBytes; a short list is one chunk.
func TestAppChunks(t *testing.T) {
	// Names of the synthetic platform's length, in no order.
	p := &ir.Program{}
	for i := range 10000 {
		p.Apps = append(p.Apps, &ir.App{Application: fmt.Sprintf("stack-%02d-app-%05d", (i*7)%50, (i*7919)%10000), Project: "p"})
	}
	chunks := appChunks(p.Apps)
	if len(chunks) < 2 {
		t.Fatalf("%d chunk(s) for %d apps", len(chunks), len(p.Apps))
	}
	var all []string
	for _, c := range chunks {
		if len(c) > listChunkBytes {
			t.Errorf("chunk of %d bytes", len(c))
		}
		var names []string
		if err := json.Unmarshal([]byte(c), &names); err != nil {
			t.Fatal(err)
		}
		all = append(all, names...)
	}
	whole, _, err := newBuilder(p).appLists(p.Apps)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal([]byte(whole), &want); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(all, want) {
		t.Errorf("the chunks hold %d names, not the %d of the sorted list", len(all), len(want))
	}
	if got := appChunks(p.Apps[:43]); len(got) != 1 {
		t.Errorf("43 apps: %d chunks", len(got))
	}
	if got := appChunks(nil); len(got) != 1 || got[0] != "[]" {
		t.Errorf("no apps: %q", got)
	}
}

// TestObjectTooLarge: an object over MaxObjectBytes is a LimitError that
// names it and says what to do.
func TestObjectTooLarge(t *testing.T) {
	// keep: the check as Emit runs it, marshalling the templates and
	// keeping their JSON, must find the same.
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			o, err := Build(synthetic(t, synth.Options{Apps: 43}))
			if err != nil {
				t.Fatal(err)
			}
			if err := o.checkSizes(keep); err != nil {
				t.Fatalf("the 43-app platform: %v", err)
			}
			big := strings.Repeat("x", MaxObjectBytes)
			o.Teardown.Spec.Arguments.Parameters[0].Description = wfv1.AnyStringPtr(big)
			err = o.checkSizes(keep)
			var le *LimitError
			if !errors.As(err, &le) {
				t.Fatalf("checkSizes = %v, want a LimitError", err)
			}
			if !strings.Contains(le.Summary, "WorkflowTemplate teardown is too large") || !strings.Contains(le.Detail, "split the platform") {
				t.Errorf("LimitError %q: %q", le.Summary, le.Detail)
			}
		})
	}
}

// TestChunkedTeardownValid: a teardown whose list of Applications is
// passed in chunks (10,000 apps) passes Argo's own validation, parent
// and cluster template, with the chunk steps' outputs wired to the
// deciding steps.
func TestChunkedTeardownValid(t *testing.T) {
	if testing.Short() {
		t.Skip("big platform")
	}
	o, err := Build(synthetic(t, synth.Options{Apps: 10000, CrossStack: true}))
	if err != nil {
		t.Fatal(err)
	}
	wfts, cwfts := wftGetter{}, cwftGetter{o.ClusterTemplate.Name: o.ClusterTemplate}
	for _, tm := range o.templates() {
		wfts[tm.Name] = tm
	}
	if err := validate.ValidateClusterWorkflowTemplate(wfts, cwfts, o.ClusterTemplate, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Fatal(err)
	}
	if err := validate.ValidateWorkflowTemplate(wfts, cwfts, o.Teardown, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range o.Teardown.Spec.Templates[0].Steps {
		for _, s := range g.Steps {
			names = append(names, s.Name)
		}
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"find-parents-01 find-parents-02", "suspend-parents", "orphan-rows-01 orphan-rows-02", "orphan-report"} {
		if !strings.Contains(joined, want) {
			t.Errorf("teardown's steps %q lack %q", joined, want)
		}
	}
}

// TestSplitAtEveryBudget: the shop (e2e's platform, with a resource wait)
// at every node budget from 10 to 60 either builds with every Workflow
// within the budget, or is a LimitError that names a budget that does
// build. At 22 it used to fail: a split deploy's child counted its
// resource wait as one node, not as its retry node and attempts.
func TestSplitAtEveryBudget(t *testing.T) {
	src, err := os.ReadFile("../../e2e/testdata/shop/platform.hcl")
	if err != nil {
		t.Fatal(err)
	}
	p := source(t, string(src))
	if !waitsForResources(p.Apps) {
		t.Fatal("the shop has no resource wait any more; this test needs one")
	}
	least := 0
	for budget := 10; budget <= 60; budget++ {
		p.Platform.Workflows.NodeBudget = budget
		o, err := Build(p)
		var le *LimitError
		if errors.As(err, &le) {
			if least != 0 {
				t.Errorf("budget %d fails after %d built: %v", budget, least, err)
				continue
			}
			var works int
			if _, err := fmt.Sscanf(le.Detail[strings.LastIndex(le.Detail, " is ")+4:], "%d.", &works); err != nil {
				t.Errorf("budget %d: the diagnostic names no budget that works: %s", budget, le.Detail)
				continue
			}
			p.Platform.Workflows.NodeBudget = works
			if _, err := Build(p); err != nil {
				t.Errorf("budget %d: the diagnostic's budget %d does not build: %v", budget, works, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if least == 0 {
			least = budget
		}
		for name, n := range o.Nodes {
			if n > budget {
				t.Errorf("budget %d: %s holds %d nodes", budget, name, n)
			}
		}
	}
	t.Logf("the shop builds from a node budget of %d", least)
}

// TestSplitNeverSlowerThanWaves: on paper (plan.Simulate, every app its
// expected duration, any parallelism), a split deploy, its children
// waiting for the children they depend on, is never slower than the
// RFC's wave-by-wave model, on layered and cross-stack platforms.
func TestSplitNeverSlowerThanWaves(t *testing.T) {
	for _, n := range []int{1000, 5000} {
		for _, cross := range []bool{false, true} {
			if n >= 5000 && testing.Short() {
				continue
			}
			p := synthetic(t, synth.Options{Apps: n, CrossStack: cross})
			o, err := Build(p)
			if err != nil {
				t.Fatal(err)
			}
			groups := SplitGroups(p, o)
			if len(groups) < 2 {
				t.Fatalf("%d apps: deploy not split", n)
			}
			s := plan.Simulate(p, groups)
			if s.DAG.Unlimited > s.Waves.Unlimited {
				t.Errorf("%d apps, cross %t: split deploy %s, waves %s", n, cross, s.DAG.Unlimited, s.Waves.Unlimited)
			}
			t.Logf("%d apps, cross %t: %d children: split %s, waves %s, critical path %s; at parallelism %d: split %s, waves %s",
				n, cross, len(groups), s.DAG.Unlimited, s.Waves.Unlimited, s.Schedule.Makespan, s.Parallelism, s.DAG.Limited, s.Waves.Limited)
		}
	}
}

// TestNodeCounterScopes: a retry limit read through a chain of calls
// resolves in each call's own scope (an argument, substituted in the
// caller's scope, or else the input's default), siblings do not see each
// other's arguments, and the counter's stack of scopes is empty after
// every count, an error included. The counts are worked out by hand from
// the rule on nodeCounter.
func TestNodeCounterScopes(t *testing.T) {
	in := func(name, def string) wfv1.Parameter {
		return wfv1.Parameter{Name: name, Default: wfv1.AnyStringPtr(def)}
	}
	step := func(tmpl string, args ...wfv1.Parameter) wfv1.ParallelSteps {
		return wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{{Name: "s", Template: tmpl, Arguments: wfv1.Arguments{Parameters: args}}}}
	}
	limit := intstr.FromString(fromInput("retries"))
	ct := &wfv1.ClusterWorkflowTemplate{Spec: wfv1.WorkflowSpec{Templates: []wfv1.Template{
		// 1 + (retries+1) nodes.
		{Name: "leaf", Inputs: wfv1.Inputs{Parameters: []wfv1.Parameter{in("retries", "1")}},
			Container: &apiv1.Container{}, RetryStrategy: &wfv1.RetryStrategy{Limit: &limit}},
		// 2 + leaf's, leaf retried n times.
		{Name: "mid", Inputs: wfv1.Inputs{Parameters: []wfv1.Parameter{in("n", "5")}},
			Steps: []wfv1.ParallelSteps{step("leaf", value("retries", fromInput("n")))}},
		// 2 + mid's, mid given m.
		{Name: "outer", Inputs: wfv1.Inputs{Parameters: []wfv1.Parameter{in("m", "7")}},
			Steps: []wfv1.ParallelSteps{step("mid", value("n", fromInput("m")))}},
	}}}
	task := func(tmpl string, args ...wfv1.Parameter) wfv1.DAGTask {
		return wfv1.DAGTask{Name: tmpl, TemplateRef: &wfv1.TemplateRef{Name: "c", Template: tmpl, ClusterScope: true}, Arguments: wfv1.Arguments{Parameters: args}}
	}
	nc := newNodeCounter(ct)
	for _, c := range []struct {
		task wfv1.DAGTask
		want int
	}{
		{task("leaf"), 1 + 2},                                            // default 1
		{task("leaf", value("retries", "4")), 1 + 5},                     // an argument
		{task("mid", value("n", "2")), 2 + 1 + 3},                        // passed down once
		{task("mid"), 2 + 1 + 6},                                         // mid's default
		{task("outer", value("m", "0")), 2 + 2 + 1 + 1},                  // passed down twice
		{task("outer"), 2 + 2 + 1 + 8},                                   // outer's default, passed down
		{task("outer", value("m", "9"), value("m", "3")), 2 + 2 + 1 + 4}, // the last of two
	} {
		got, err := nc.task(nil, &c.task)
		if err != nil || got != c.want {
			t.Errorf("%s %v: %d nodes, %v; want %d", c.task.TemplateRef.Template, c.task.Arguments.Parameters, got, err, c.want)
		}
		if n := len(*nc.scopes); n != 0 {
			t.Fatalf("%d scopes left on the stack", n)
		}
	}
	// Siblings in one DAG: each reads its own arguments, whichever ran
	// before it.
	spec := wfv1.WorkflowSpec{Entrypoint: "main", Templates: []wfv1.Template{{Name: "main", DAG: &wfv1.DAGTemplate{Tasks: []wfv1.DAGTask{
		task("outer", value("m", "0")), task("mid"), task("leaf", value("retries", "4")), task("mid", value("n", "2")),
	}}}}}
	if got, err := nc.workflow(&spec); err != nil || got != 1+6+9+6+6 {
		t.Errorf("workflow: %d nodes, %v; want %d", got, err, 1+6+9+6+6)
	}
	bad := task("outer", value("m", "many"))
	if _, err := nc.task(nil, &bad); err == nil || !strings.Contains(err.Error(), `retry limit "{{inputs.parameters.retries}}" does not resolve to a number`) {
		t.Errorf("a limit that is no number: %v", err)
	}
	if n := len(*nc.scopes); n != 0 {
		t.Errorf("%d scopes left on the stack after an error", n)
	}
}

// TestAppendJSONString: appendJSONString writes what json.Marshal does,
// on the names it quotes itself and on those it leaves to Marshal.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "app-00001", "stack-01.app", "UPPER_case~!", `q"uote`, `back\slash`, "<tag>&", "tab\there", "\x7f", "é", "\u2028", "bad\xffutf8"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: %s, want x%s", s, got, want)
		}
	}
}
