package argo

import (
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
)

func templateNamed(wf *wfv1.Workflow, name string) *wfv1.Template {
	for i := range wf.Spec.Templates {
		if wf.Spec.Templates[i].Name == name {
			return &wf.Spec.Templates[i]
		}
	}
	return nil
}

// stepNames lists main's steps in order.
func stepNames(wf *wfv1.Workflow) []string {
	var out []string
	for _, ps := range templateNamed(wf, tmplMain).Steps {
		for _, s := range ps.Steps {
			out = append(out, s.Name)
		}
	}
	return out
}

// taskApps lists the Application argument of every task of a flat DAG,
// with the template each task calls.
func taskApps(t *testing.T, tmpl *wfv1.Template) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, task := range tmpl.DAG.Tasks {
		if task.TemplateRef != nil {
			t.Errorf("task %s refers to %s/%s: a scoped workflow must carry its own templates", task.Name, task.TemplateRef.Name, task.TemplateRef.Template)
		}
		out[task.Name] = task.Template
	}
	return out
}

func appNames(apps []*ir.App) []string {
	out := make([]string, len(apps))
	for i, a := range apps {
		out[i] = a.Name
	}
	slices.Sort(out)
	return out
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestScopedDeployStack(t *testing.T) {
	p := example(t)
	s := p.Stack("platform-data")
	if s == nil {
		t.Fatal("the example has no stack platform-data")
	}
	wf, err := ScopedDeploy(p, s.Apps)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(wf.GenerateName, "deploy-platform-data-") || wf.Annotations["platc.io/scope"] != "stack:platform-data" {
		t.Errorf("generateName %q, scope %q", wf.GenerateName, wf.Annotations["platc.io/scope"])
	}
	if wf.Namespace != p.Platform.Workflows.Namespace || wf.Spec.ServiceAccountName != p.Platform.Workflows.ServiceAccount {
		t.Errorf("namespace %q, service account %q", wf.Namespace, wf.Spec.ServiceAccountName)
	}
	if wf.Spec.Synchronization == nil || wf.Spec.Synchronization.Mutexes[0].Name != "platc-"+p.Platform.Name {
		t.Error("a scoped deploy must hold the platform's mutex")
	}
	// The outside dependencies: every dependency of a stack app that is
	// not in the stack, each checked once, read-only.
	inScope := map[*ir.App]bool{}
	for _, a := range s.Apps {
		inScope[a] = true
	}
	var outside []*ir.App
	for _, a := range s.Apps {
		for _, d := range a.Deps {
			if !inScope[d.App] && !slices.Contains(outside, d.App) {
				outside = append(outside, d.App)
			}
		}
	}
	if len(outside) == 0 {
		t.Fatal("stack platform-data has no outside dependencies; pick another stack")
	}
	if got := stepNames(wf); !slices.Equal(got[:2], []string{tmplChecks, tmplApps}) {
		t.Errorf("steps %v: the checks must come before the apps", got)
	}
	checks := taskApps(t, templateNamed(wf, tmplChecks))
	if !slices.Equal(keys(checks), appNames(outside)) {
		t.Errorf("checked %v, want the outside dependencies %v", keys(checks), appNames(outside))
	}
	for name, tmpl := range checks {
		if tmpl != tmplCheckHealthy {
			t.Errorf("check %s runs %s", name, tmpl)
		}
	}
	for _, task := range templateNamed(wf, tmplChecks).DAG.Tasks {
		if task.Depends != "" {
			t.Errorf("check %s waits for %s; checks run at once", task.Name, task.Depends)
		}
	}
	// The scope's own DAG: its apps, its internal edges only.
	apps := templateNamed(wf, tmplApps)
	if got := keys(taskApps(t, apps)); !slices.Equal(got, appNames(s.Apps)) {
		t.Errorf("deploys %v, want %v", got, appNames(s.Apps))
	}
	for _, task := range apps.DAG.Tasks {
		a := p.App(task.Name)
		var want []string
		for _, d := range a.Deps {
			if inScope[d.App] {
				want = append(want, d.App.Name)
			}
		}
		if task.Depends != strings.Join(want, " && ") {
			t.Errorf("%s depends %q, want %q", task.Name, task.Depends, strings.Join(want, " && "))
		}
	}
	for _, name := range []string{tmplSyncAndWait, tmplCheckHealthy} {
		if templateNamed(wf, name) == nil {
			t.Errorf("template %s is not carried", name)
		}
	}
}

func TestScopedDeployAppWithoutOutsideDependencies(t *testing.T) {
	p := example(t)
	first := p.Apps[0]
	wf, err := ScopedDeploy(p, []*ir.App{first})
	if err != nil {
		t.Fatal(err)
	}
	if got := stepNames(wf); got[0] != tmplApps {
		t.Errorf("steps %v: nothing to check, so the apps come first", got)
	}
	if templateNamed(wf, tmplCheckHealthy) != nil {
		t.Error("check-healthy carried without checks")
	}
	if wf.Annotations["platc.io/scope"] != "app:"+first.Name {
		t.Errorf("scope %q", wf.Annotations["platc.io/scope"])
	}
}

func TestScopedTeardown(t *testing.T) {
	p := example(t)
	first := p.Apps[0] // many apps depend on it
	wf, err := ScopedTeardown(p, []*ir.App{first})
	if err != nil {
		t.Fatal(err)
	}
	// The example has snapshot policies: every snapshot before the first
	// deletion.
	if got := stepNames(wf); !slices.Equal(got, []string{"confirm", tmplChecks, "suspend-parents", "snapshots", tmplApps}) {
		t.Errorf("steps %v", got)
	}
	checks := taskApps(t, templateNamed(wf, tmplChecks))
	var dependents []*ir.App
	dependents = append(dependents, first.Dependents...)
	if !slices.Equal(keys(checks), appNames(dependents)) {
		t.Errorf("checked %v, want the dependents %v", keys(checks), appNames(dependents))
	}
	for name, tmpl := range checks {
		if tmpl != tmplCheckAbsent {
			t.Errorf("check %s runs %s", name, tmpl)
		}
	}
	var params []string
	for _, prm := range wf.Spec.Arguments.Parameters {
		params = append(params, prm.Name)
	}
	if !slices.Equal(params, []string{ParamConfirm, ParamVolumes}) {
		t.Errorf("parameters %v", params)
	}
	if got := keys(taskApps(t, templateNamed(wf, tmplApps))); !slices.Equal(got, []string{first.Name}) {
		t.Errorf("deletes %v", got)
	}
}

func TestScopeErrors(t *testing.T) {
	p := example(t)
	other := example(t)
	for _, c := range []struct {
		name  string
		scope []*ir.App
		want  string
	}{
		{"empty", nil, "empty scope"},
		{"foreign", []*ir.App{other.Apps[0]}, "not part of this program"},
		{"twice", []*ir.App{p.Apps[1], p.Apps[1]}, "in the scope twice"},
	} {
		if _, err := ScopedDeploy(p, c.scope); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ScopedDeploy(%s) = %v, want %q", c.name, err, c.want)
		}
		if _, err := ScopedTeardown(p, c.scope); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ScopedTeardown(%s) = %v, want %q", c.name, err, c.want)
		}
	}
}
