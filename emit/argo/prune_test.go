package argo

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-workflows/v3/workflow/validate"

	"github.com/platc/platc/compiler/ir"
)

// Three apps left the platform: web depended on db and on api (still in
// the platform), and db on cache, also removed. Whatever order they come
// in, web goes first, then db, then cache.
func removedFixture() []Removed {
	return []Removed{
		{App: "cache", Application: "cache", Project: "data", Volumes: ir.VolumesDelete, Timeout: 5 * time.Minute},
		{App: "web", Application: "web-app", Project: "default", DependsOn: []string{"db", "api"}, Volumes: ir.VolumesRetain, Timeout: 15 * time.Minute},
		{App: "db", Application: "db", Project: "data", DependsOn: []string{"cache"}, Volumes: ir.VolumesRetain, Timeout: time.Hour},
	}
}

func TestRemovalOrder(t *testing.T) {
	r := removedFixture()
	for range 3 {
		var got []string
		for _, x := range RemovalOrder(r) {
			got = append(got, x.Application)
		}
		if want := []string{"web-app", "db", "cache"}; !slices.Equal(got, want) {
			t.Errorf("RemovalOrder(%v) = %v, want %v", r, got, want)
		}
		r = append(r[1:], r[0])
	}
	// Records that disagree into a cycle still give every app once.
	cyc := []Removed{{Application: "b", DependsOn: []string{"a"}}, {Application: "a", DependsOn: []string{"b"}}}
	if got := RemovalOrder(cyc); len(got) != 2 || got[0].Application != "a" || got[1].Application != "b" {
		t.Errorf("cycle: %v", got)
	}
}

func TestPrune(t *testing.T) {
	p := source(t, `
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
app "api" {
  namespace = "api"
  source { path = "api" }
}
`)
	wf, err := Prune(p, removedFixture())
	if err != nil {
		t.Fatal(err)
	}
	if got := stepNames(wf); !slices.Equal(got, []string{tmplApps}) {
		t.Errorf("main's steps = %v: pruning must neither ask for a confirmation nor suspend the root", got)
	}
	if wf.Spec.Synchronization == nil || wf.Spec.Synchronization.Mutexes[0].Name != "platc-shop" {
		t.Errorf("the prune workflow does not hold the platform's mutex: %+v", wf.Spec.Synchronization)
	}
	dag := templateNamed(wf, tmplApps)
	deps := map[string]string{}
	args := map[string]map[string]string{}
	for _, task := range dag.DAG.Tasks {
		deps[task.Name] = task.Depends
		args[task.Name] = map[string]string{}
		for _, p := range task.Arguments.Parameters {
			args[task.Name][p.Name] = p.Value.String()
		}
	}
	want := map[string]string{"web-app": "", "db": "web-app", "cache": "db"}
	for name, d := range want {
		if got, ok := deps[name]; !ok || got != d {
			t.Errorf("task %s depends on %q, want %q (all: %v)", name, got, d, deps)
		}
	}
	if len(deps) != len(want) {
		t.Errorf("tasks %v, want exactly %v", keys(deps), []string{"cache", "db", "web-app"})
	}
	// Each with its own recorded policy and timeout (a value equal to the
	// template's default is left out of the task's arguments).
	def := func(task, name string) string {
		if v, ok := args[task][name]; ok {
			return v
		}
		for _, in := range templateNamed(wf, tmplDeleteAndWait).Inputs.Parameters {
			if in.Name == name && in.Default != nil {
				return in.Default.String()
			}
		}
		return ""
	}
	for task, w := range map[string][2]string{"cache": {"delete", "300"}, "db": {"retain", "3600"}, "web-app": {"retain", "900"}} {
		if v, to := def(task, "volumes"), def(task, "timeout"); v != w[0] || to != w[1] {
			t.Errorf("%s: volumes %q timeout %q, want %q %q", task, v, to, w[0], w[1])
		}
		if a := def(task, "application"); a != task {
			t.Errorf("task %s deletes Application %q", task, a)
		}
	}
	if def("cache", "project") != "data" || def("web-app", "project") != "default" {
		t.Errorf("projects not passed: %v", args)
	}
	if err := validate.ValidateWorkflow(wftGetter{}, cwftGetter{}, roundTrip(t, wf), nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo refuses the prune workflow: %v", err)
	}

	// A removed app whose recorded policy is snapshot: every snapshot is
	// taken, and ready, before the first deletion, as in teardown.
	snap := removedFixture()
	snap[2].Volumes = ir.VolumesSnapshot // db
	wf, err = Prune(p, snap)
	if err != nil {
		t.Fatal(err)
	}
	if got := stepNames(wf); !slices.Equal(got, []string{"snapshots", tmplApps}) {
		t.Errorf("main's steps = %v, want the snapshots before the apps", got)
	}
	if st := wf.Spec.Templates[0].Steps[0].Steps[0]; !strings.Contains(st.Arguments.Parameters[0].Value.String(), `{"application":"db","project":"data","volumes":"snapshot","timeout":"3600"}`) {
		t.Errorf("snapshots step arguments %v", st.Arguments.Parameters)
	}
	if err := validate.ValidateWorkflow(wftGetter{}, cwftGetter{}, roundTrip(t, wf), nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo refuses the prune workflow with snapshots: %v", err)
	}

	// An app that is still in the platform is never pruned.
	_, err = Prune(p, []Removed{{App: "old", Application: "api", Project: "default", Volumes: ir.VolumesRetain, Timeout: time.Minute}})
	if err == nil || !strings.Contains(err.Error(), "is part of the platform") {
		t.Errorf("pruning a platform app: err = %v", err)
	}
}

// TestPruneOverBudget: the prune workflow, compiled on the spot like a
// scoped one, is held to the node budget: over it, a LimitError with the
// count and the budget, and no workflow.
func TestPruneOverBudget(t *testing.T) {
	p := source(t, `
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
  workflows {
    node_budget = 10
  }
}
app "api" {
  namespace = "api"
  source { path = "api" }
}
`)
	wf, err := Prune(p, removedFixture())
	var le *LimitError
	if !errors.As(err, &le) || wf != nil {
		t.Fatalf("Prune = %v, %v; want a LimitError", wf != nil, err)
	}
	if !strings.Contains(le.Summary, "over the node budget") || !strings.Contains(le.Detail, "node budget of 10") || le.Nodes() <= 10 {
		t.Errorf("%s: %s (%d nodes)", le.Summary, le.Detail, le.Nodes())
	}
}
