package argo

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

func TestParseDepends(t *testing.T) {
	for _, c := range []struct {
		in   string
		refs []string
		err  string
	}{
		{in: "a", refs: []string{"a"}},
		{in: "a && b-2 && c", refs: []string{"a", "b-2", "c"}},
		{in: "(a.Succeeded || a.Skipped) && !b.Failed", refs: []string{"a", "a", "b"}},
		{in: "a &&", err: "ends where a task name is expected"},
		{in: "&& a", err: `unexpected "&&"`},
		{in: "a b", err: `unexpected "b"`},
		{in: "(a && b", err: "missing )"},
		{in: "a.Sucseeded", err: `unknown task result "Sucseeded"`},
		{in: "a & b", err: `unexpected "&"`},
		{in: "9a", err: "not a task name"},
	} {
		refs, err := parseDepends(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("parseDepends(%q) error = %v, want one containing %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("parseDepends(%q): %v", c.in, err)
		case c.err == "" && !slices.Equal(refs, c.refs):
			t.Errorf("parseDepends(%q) = %v, want %v", c.in, refs, c.refs)
		}
	}
}

// TestCheckSpecCatches breaks a real deploy spec in each way Argo's own
// validation lets through, and requires checkSpec to refuse every one:
// the checks are only worth having if they can fail.
func TestCheckSpecCatches(t *testing.T) {
	p := example(t)
	dagOf := func(s *wfv1.WorkflowSpec) *wfv1.DAGTemplate {
		for i := range s.Templates {
			if s.Templates[i].Name == tmplApps {
				return s.Templates[i].DAG
			}
		}
		t.Fatal("no apps DAG")
		return nil
	}
	for _, c := range []struct {
		name   string
		mangle func(s *wfv1.WorkflowSpec)
		want   string
	}{
		{"broken depends", func(s *wfv1.WorkflowSpec) { dagOf(s).Tasks[1].Depends += " &&" }, "ends where a task name"},
		{"unknown task", func(s *wfv1.WorkflowSpec) { dagOf(s).Tasks[1].Depends = "no-such-app" }, "not a task of this DAG"},
		{"self dependency", func(s *wfv1.WorkflowSpec) { d := dagOf(s); d.Tasks[1].Depends = d.Tasks[1].Name }, "depends on itself"},
		{"leading digit", func(s *wfv1.WorkflowSpec) { dagOf(s).Tasks[0].Name = "1st" }, "task name"},
		{"duplicate task", func(s *wfv1.WorkflowSpec) { d := dagOf(s); d.Tasks[1].Name = d.Tasks[0].Name }, "appears twice"},
		{"continueOn", func(s *wfv1.WorkflowSpec) { dagOf(s).Tasks[0].ContinueOn = &wfv1.ContinueOn{Failed: true} }, "continueOn"},
		{"dependencies", func(s *wfv1.WorkflowSpec) { dagOf(s).Tasks[0].Dependencies = []string{"x"} }, "dependencies"},
		{"too many tasks", func(s *wfv1.WorkflowSpec) {
			d := dagOf(s)
			for i := len(d.Tasks); i <= MaxTasks; i++ {
				d.Tasks = append(d.Tasks, wfv1.DAGTask{Name: "extra-" + itoa(i), TemplateRef: ref(tmplSyncAndWait)})
			}
		}, "per DAG"},
		{"too many templates", func(s *wfv1.WorkflowSpec) {
			for i := len(s.Templates); i <= MaxTemplates; i++ {
				s.Templates = append(s.Templates, wfv1.Template{Name: "t" + itoa(i), Suspend: &wfv1.SuspendTemplate{}})
			}
		}, "templates"},
		{"undefined template", func(s *wfv1.WorkflowSpec) { s.Templates[0].Steps[0].Steps[0].Template = "nope" }, "undefined template"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBuilder(p)
			wft, err := b.deploy(Limits)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkSpec(&wft.Spec); err != nil {
				t.Fatalf("the unbroken spec fails: %v", err)
			}
			c.mangle(&wft.Spec)
			err = checkSpec(&wft.Spec)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("checkSpec = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	for _, c := range []struct {
		name     string
		generate bool
		ok       bool
	}{
		{"deploy", false, true},
		{"platc-argocd", false, true},
		{"Deploy", false, false},
		{"-x", false, false},
		{"a.b", false, true},
		{strings.Repeat("a", 64), false, false},
		{"deploy-stack-x-", true, true},
		{strings.Repeat("a", 57) + "-", true, true},
		{strings.Repeat("a", 58) + "-", true, false},
	} {
		err := checkName("test", c.name, 63, c.generate)
		if (err == nil) != c.ok {
			t.Errorf("checkName(%q, generate=%t) = %v, want ok=%t", c.name, c.generate, err, c.ok)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
