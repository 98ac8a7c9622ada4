package argo

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/util/template"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
)

// whenRuns resolves a DAG task's when as Argo's controller does
// (workflow/controller/dag.go, resolveDependencyReferences: the when,
// JSON-quoted, through template.ReplaceStrictAny with the workflow's
// parameters) and reports whether the task runs.
func whenRuns(t *testing.T, when string, params map[string]string) bool {
	t.Helper()
	if when == "" {
		return true
	}
	scope := map[string]any{}
	for k, v := range params {
		scope["workflow.parameters."+k] = v
	}
	quoted, _ := json.Marshal(when)
	out, err := template.ReplaceStrictAny(string(quoted), scope, []string{"tasks", "steps"})
	if err != nil {
		t.Fatalf("when %s: %v", when, err)
	}
	var resolved string
	if err := json.Unmarshal([]byte(out), &resolved); err != nil {
		t.Fatal(err)
	}
	switch resolved {
	case "true":
		return true
	case "false":
		return false
	}
	t.Fatalf("when %s resolved to %q, not a boolean", when, resolved)
	return false
}

// childArguments resolves the parent's child-workflow template as Argo
// substitutes a template before running it (template.Replace over its
// JSON) and returns the arguments of the child Workflow it creates.
func childArguments(t *testing.T, parent *wfv1.WorkflowTemplate, child string, params map[string]string) map[string]string {
	t.Helper()
	var run *wfv1.Template
	for i := range parent.Spec.Templates {
		if parent.Spec.Templates[i].Name == tmplChild {
			run = &parent.Spec.Templates[i]
		}
	}
	if run == nil {
		t.Fatalf("%s has no %s template", parent.Name, tmplChild)
	}
	scope := map[string]any{"workflow.name": "deploy-abc12", "inputs.parameters.template": child}
	for k, v := range params {
		scope["workflow.parameters."+k] = v
	}
	raw, _ := json.Marshal(run)
	out, err := template.Replace(string(raw), scope, false)
	if err != nil {
		t.Fatalf("substituting %s: %v", tmplChild, err)
	}
	var resolved wfv1.Template
	if err := json.Unmarshal([]byte(out), &resolved); err != nil {
		t.Fatal(err)
	}
	var wf wfv1.Workflow
	if err := yaml.UnmarshalStrict([]byte(resolved.Resource.Manifest), &wf); err != nil {
		t.Fatalf("child manifest after substitution: %v\n%s", err, resolved.Resource.Manifest)
	}
	if wf.Spec.WorkflowTemplateRef == nil || wf.Spec.WorkflowTemplateRef.Name != child {
		t.Fatalf("child manifest runs %+v, want %s", wf.Spec.WorkflowTemplateRef, child)
	}
	args := map[string]string{}
	for _, p := range wf.Spec.Arguments.Parameters {
		args[p.Name] = p.Value.String()
	}
	return args
}

// noResource and allResources are ready funcs: no resource wait is
// skipped, or every one whose app converged.
func noResource(*ir.Resource) bool   { return false }
func allResources(*ir.Resource) bool { return true }

// TestResumeSkipsConverged follows the masks of a split deploy through
// Argo's own substitution: exactly the converged apps' tasks are
// skipped, in the parent's children too, and a child whose apps all
// converged is not created; a resource wait is skipped exactly when its
// resource is ready and its app converged.
func TestResumeSkipsConverged(t *testing.T) {
	p := resourcesPlatform(t)
	p.Platform.Workflows.NodeBudget = 20
	o, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	children := o.Children[DeployTemplate]
	if len(children) < 2 {
		t.Fatalf("deploy has %d children; the test needs a split deploy", len(children))
	}
	// Converged: every app of the first child, and every third app.
	first := map[string]bool{}
	for _, name := range ChildApps(children[0]) {
		first[name] = true
	}
	converged := func(a *ir.App) bool { return first[a.Name] || a.Index%3 == 0 }
	// Ready: every other waited-for resource.
	waits := map[string]*ir.Resource{}
	ready := map[*ir.Resource]bool{}
	for j, r := range resourceOrder(p) {
		waits[r.TaskName()] = r
		ready[r] = j%2 == 0
	}
	if len(waits) < 2 {
		t.Fatalf("%d resource waits; the test needs some", len(waits))
	}
	args := ConvergedArguments(p, o, converged, func(r *ir.Resource) bool { return ready[r] })
	if len(args[ParamConverged]) != keyLen+len(p.Apps)+len(waits) || len(args[ParamConvergedChildren]) != keyLen+len(children) {
		t.Fatalf("arguments %v: want a key and one character per app, per waited-for resource and per child", args)
	}
	waitsSkipped, waitsRun := 0, 0
	skipped, ran := 0, 0
	for _, task := range o.Deploy.Spec.Templates[1].DAG.Tasks {
		want := true
		if strings.HasSuffix(task.Name, "-01") {
			want = false
		}
		if got := whenRuns(t, task.When, args); got != want {
			t.Errorf("parent task %s runs: %t, want %t", task.Name, got, want)
		}
	}
	for _, c := range children {
		childParams := childArguments(t, o.Deploy, c.Name, args)
		if childParams[ParamConverged] != args[ParamConverged] {
			t.Errorf("child %s gets converged=%q, want the parent's", c.Name, childParams[ParamConverged])
		}
		for _, task := range c.Spec.Templates[0].DAG.Tasks {
			var want bool
			if r, wait := waits[task.Name]; wait {
				want = !ready[r] || !converged(r.App)
			} else {
				want = !converged(p.App(task.Name))
			}
			got := whenRuns(t, task.When, childParams)
			if got != want {
				t.Errorf("child %s task %s runs: %t, want %t", c.Name, task.Name, got, want)
			}
			if _, wait := waits[task.Name]; wait && got {
				waitsRun++
			} else if wait {
				waitsSkipped++
			}
			if got {
				ran++
			} else {
				skipped++
			}
		}
	}
	if skipped == 0 || ran == 0 || waitsSkipped == 0 || waitsRun == 0 {
		t.Errorf("%d tasks skipped, %d run (resource waits: %d skipped, %d run): want some of each", skipped, ran, waitsSkipped, waitsRun)
	}
}

// TestResumeSkipsNothingElse: a deploy without the arguments (argo
// submit, the push sensor), with a mask made for another compilation of
// the platform, or with a malformed one runs every task; a mask that is
// not only hex digits does not reach a child's manifest.
func TestResumeSkipsNothingElse(t *testing.T) {
	p := resourcesPlatform(t)
	p.Platform.Workflows.NodeBudget = 20
	o, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	all := func(*ir.App) bool { return true }
	args := ConvergedArguments(p, o, all, allResources)
	if ConvergedArguments(p, o, func(*ir.App) bool { return false }, noResource) != nil {
		t.Error("no app converged, yet there are arguments")
	}
	other := synthetic(t, synth.Options{Apps: 43, Stacks: 11})
	oo, err := Build(other)
	if err != nil {
		t.Fatal(err)
	}
	foreign := ConvergedArguments(other, oo, all, allResources)
	// What a Workflow submitted without arguments has: the template's
	// declarations.
	defaults := map[string]string{}
	for _, prm := range o.Deploy.Spec.Arguments.Parameters {
		defaults[prm.Name] = prm.Value.String()
	}
	flipped := strings.Repeat("1", len(args[ParamConverged]))
	// Stale: a mask for the same apps from a compilation in which no app
	// waited for a resource (its key has no resources), all "1".
	names := []string{"apps"}
	for _, a := range p.Apps {
		names = append(names, a.Name)
	}
	stale := digest(names) + strings.Repeat("1", len(args[ParamConverged])-keyLen)
	if stale[:keyLen] == args[ParamConverged][:keyLen] {
		t.Fatal("the key does not depend on the resource waits")
	}
	for name, params := range map[string]map[string]string{
		"none":    defaults,
		"empty":   {ParamConverged: "", ParamConvergedChildren: ""},
		"foreign": foreign,
		"stale":   {ParamConverged: stale},
		"no key":  {ParamConverged: flipped, ParamConvergedChildren: strings.Repeat("1", 40)},
	} {
		// A Workflow's arguments override the template's declarations.
		merged := maps.Clone(defaults)
		maps.Copy(merged, params)
		params = merged
		for _, c := range o.Children[DeployTemplate] {
			for _, task := range c.Spec.Templates[0].DAG.Tasks {
				if !whenRuns(t, task.When, params) {
					t.Errorf("%s: child %s task %s is skipped", name, c.Name, task.Name)
				}
			}
		}
		for _, task := range o.Deploy.Spec.Templates[1].DAG.Tasks {
			if !whenRuns(t, task.When, params) {
				t.Errorf("%s: parent task %s is skipped", name, task.Name)
			}
		}
	}
	bad := args[ParamConverged] + "\"\n  injected: true"
	got := childArguments(t, o.Deploy, o.Children[DeployTemplate][0].Name, map[string]string{ParamConverged: bad})
	if got[ParamConverged] != "" {
		t.Errorf("a malformed mask reached the child as %q; want it empty", got[ParamConverged])
	}
}

// TestSkipWhenText: the when of a skipped task, as the goldens hold it,
// at the first position and one past a hundred (three digits).
func TestSkipWhenText(t *testing.T) {
	for pos, want := range map[int]string{
		0:   `{{=workflow.parameters.converged[0:12] != "0123456789ab" || workflow.parameters.converged[12:13] != "1"}}`,
		101: `{{=workflow.parameters.converged[0:12] != "0123456789ab" || workflow.parameters.converged[113:114] != "1"}}`,
	} {
		if got := skipWhen("converged", "0123456789ab", pos); got != want {
			t.Errorf("position %d: %s, want %s", pos, got, want)
		}
	}
}
