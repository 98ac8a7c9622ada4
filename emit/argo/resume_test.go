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

// TestResumeSkipsConverged follows the masks of a split deploy through
// Argo's own substitution: exactly the converged apps' tasks are
// skipped, in the parent's children too, and a child whose apps all
// converged is not created; resource waits run.
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
	for _, name := range childApps(children[0]) {
		first[name] = true
	}
	converged := func(a *ir.App) bool { return first[a.Name] || a.Index%3 == 0 }
	args := ConvergedArguments(p, o, converged)
	if len(args[ParamConverged]) != keyLen+len(p.Apps) || len(args[ParamConvergedChildren]) != keyLen+len(children) {
		t.Fatalf("arguments %v: want a key and one character per app and per child", args)
	}
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
			a := p.App(task.Name)
			want := a == nil || !converged(a) // a resource wait always runs
			got := whenRuns(t, task.When, childParams)
			if got != want {
				t.Errorf("child %s task %s runs: %t, want %t", c.Name, task.Name, got, want)
			}
			if got {
				ran++
			} else {
				skipped++
			}
		}
	}
	if skipped == 0 || ran == 0 {
		t.Errorf("%d tasks skipped, %d run: want some of each", skipped, ran)
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
	args := ConvergedArguments(p, o, all)
	if ConvergedArguments(p, o, func(*ir.App) bool { return false }) != nil {
		t.Error("no app converged, yet there are arguments")
	}
	other := synthetic(t, synth.Options{Apps: 43, Stacks: 11})
	oo, err := Build(other)
	if err != nil {
		t.Fatal(err)
	}
	foreign := ConvergedArguments(other, oo, all)
	// What a Workflow submitted without arguments has: the template's
	// declarations.
	defaults := map[string]string{}
	for _, prm := range o.Deploy.Spec.Arguments.Parameters {
		defaults[prm.Name] = prm.Value.String()
	}
	flipped := strings.Repeat("1", len(args[ParamConverged]))
	for name, params := range map[string]map[string]string{
		"none":    defaults,
		"empty":   {ParamConverged: "", ParamConvergedChildren: ""},
		"foreign": foreign,
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
