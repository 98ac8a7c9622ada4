package executor

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/config"
)

// RFC 5.3's aggregation table, with what it leaves open decided once.
func TestAggregate(t *testing.T) {
	for _, c := range []struct {
		states []appStatus
		want   string
	}{
		{[]appStatus{{Exists: true, Health: "Healthy"}, {Exists: true, Health: "Healthy"}}, "Healthy"},
		{[]appStatus{{Exists: true, Health: "Healthy"}, {Exists: true, Health: "Progressing"}}, "Progressing"},
		{[]appStatus{{Exists: true, Health: "Suspended"}}, "Progressing"},
		{[]appStatus{{Exists: true, Health: "Progressing"}, {Exists: true, Health: "Degraded"}}, "Degraded"},
		{[]appStatus{{Exists: true, Health: "Healthy"}, {}}, "Degraded"}, // Missing
		{[]appStatus{{Exists: true, Health: "Healthy", Deleting: true}}, "Degraded"},
		{[]appStatus{{Exists: true, Health: "Degraded"}, {Exists: true, Health: "Unknown"}}, "Failed"},
		{[]appStatus{{Exists: true, Health: "Healthy", Operation: "Failed"}}, "Failed"},
		{[]appStatus{{Exists: true}}, "Failed"}, // never assessed
	} {
		n := map[string]int{}
		for _, s := range c.states {
			n[rfcState(s)]++
		}
		if got := aggregate(n); got != c.want {
			t.Errorf("%+v: %s, want %s", c.states, got, c.want)
		}
	}
}

const stacked = `
platform "acme" {
  argocd { namespace = "argocd" }
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1"
  }
}
environment "staging" { domain = "s.example.com" }
stack "data" {
  app "db" {
    namespace = "db"
    source { path = "apps/db" }
  }
  app "cache" {
    namespace = "cache"
    source { path = "apps/cache" }
  }
}
stack "web" {
  depends_on = [stack.data]
  app "site" {
    namespace = "site"
    source { path = "apps/site" }
  }
}
app "tools" {
  namespace = "tools"
  source { path = "apps/tools" }
}
`

// validate's report aggregates per stack and for the platform; apps
// outside a stack count for the platform only.
func TestAggregateHealthReport(t *testing.T) {
	p := compileEnv(t, stacked, "staging")
	r := &run{cfg: &config.Config{Action: config.Validate, Program: p, ScopeApps: p.Apps}, rep: &Report{}}
	status := map[string]appStatus{
		"db":    {Exists: true, Health: "Healthy"},
		"cache": {Exists: true, Health: "Progressing"},
		"site":  {Exists: true, Health: "Healthy"},
		"tools": {},
	}
	r.aggregateHealth(p.Apps, status, nil)
	want := []StackHealth{
		{Stack: "data", Health: "Progressing", Apps: map[string]int{"Healthy": 1, "Progressing": 1}},
		{Stack: "web", Health: "Healthy", Apps: map[string]int{"Healthy": 1}},
	}
	if diff := cmp.Diff(want, r.rep.Stacks); diff != "" || r.rep.Health != "Degraded" {
		t.Errorf("platform %s (want Degraded: tools is Missing); stacks (-want +got):\n%s", r.rep.Health, diff)
	}
	if got := countsText(want[0].Apps); got != "1 Progressing, 1 Healthy" {
		t.Errorf("countsText = %q", got)
	}
}

// INV-2 on the cluster: an Application whose first sync Argo CD's
// automated sync started, read from its history entry 0, or from the
// operation while it has no history yet.
func TestFirstSyncAutomated(t *testing.T) {
	app := func(status map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": status}}
	}
	for _, c := range []struct {
		name   string
		status map[string]any
		want   bool
	}{
		{"platc first", map[string]any{"history": []any{
			map[string]any{"id": int64(0), "initiatedBy": map[string]any{"username": "platc-automation"}},
			map[string]any{"id": int64(1), "initiatedBy": map[string]any{"automated": true}},
		}}, false},
		{"automated first", map[string]any{"history": []any{map[string]any{"id": int64(0), "initiatedBy": map[string]any{"automated": true}}}}, true},
		{"rotated out", map[string]any{"history": []any{map[string]any{"id": int64(11), "initiatedBy": map[string]any{"automated": true}}}}, false},
		{"first operation running", map[string]any{"operationState": map[string]any{"phase": "Running", "operation": map[string]any{"initiatedBy": map[string]any{"automated": true}}}}, true},
		{"never synced", map[string]any{}, false},
	} {
		if got := firstSyncAutomated(app(c.status)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestUndeclaredHooks: a live hook is declared by a hook block of its
// app with the same phase; one whose phase Argo CD no longer reports, by
// any hook block of its app.
func TestUndeclaredHooks(t *testing.T) {
	migrate := &ir.App{Name: "db", Hooks: []ir.Hook{{Name: "migrate", Phase: "PreSync", Purpose: "migration"}}}
	bare := &ir.App{Name: "api"}
	job := func(name, phase string) liveHook {
		return liveHook{Group: "batch", Kind: "Job", Namespace: "ns", Name: name, Phase: phase}
	}
	status := map[string]appStatus{
		"db":  {Exists: true, Hooks: []liveHook{job("db-migrate", "PreSync"), job("db-check", "PostSync"), job("db-left", "")}},
		"api": {Exists: true, Hooks: []liveHook{{Kind: "Pod", Namespace: "ns", Name: "api-ping", Phase: "Sync"}, job("api-left", "")}},
	}
	got := undeclaredHooks([]*ir.App{migrate, bare}, status)
	want := []string{
		"app db: batch/Job ns/db-check (PostSync)",
		"app api: Pod ns/api-ping (Sync)",
		"app api: batch/Job ns/api-left (phase not reported)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("undeclared hooks (-want +got):\n%s", diff)
	}
	if got := undeclaredHooks([]*ir.App{bare}, map[string]appStatus{"api": {Hooks: []liveHook{job("gone", "Sync")}}}); got != nil {
		t.Errorf("an app without an Application has no hooks: %v", got)
	}
}

func TestCompliance(t *testing.T) {
	r := testRun(t, config.Validate, day2Cluster(t), nil)
	status := map[string]appStatus{}
	for _, a := range r.cfg.ScopeApps {
		status[a.Name] = appStatus{Exists: true, Health: "Healthy"}
	}
	if r.compliance(r.cfg.ScopeApps, status) || len(r.rep.Compliance) != 3 {
		t.Fatalf("a compliant platform: %+v", r.rep.Compliance)
	}
	first := r.cfg.ScopeApps[0]
	status[first.Name] = appStatus{Exists: true, Health: "Healthy", FirstSyncAutomated: true,
		Hooks: []liveHook{{Group: "batch", Kind: "Job", Namespace: "ns", Name: "wait-for-db", Phase: "PreSync"}}}
	r.rep.Compliance = nil
	r.rep.BootstrapDrift = []Drift{{What: DriftHealth, Object: "example.com/Widget"}}
	if !r.compliance(r.cfg.ScopeApps, status) {
		t.Fatal("not compliant, but compliance passed")
	}
	want := []Compliance{
		{Invariant: "INV-2", Check: "no Application was first synced by automated sync rather than by platc", Status: "fail", Detail: "1 Application first synced by Argo CD's automated sync: " + first.Application},
		{Invariant: "INV-7", Check: "Argo CD's health customizations are the compiled ones", Status: "fail", Detail: "differs for example.com/Widget"},
		{Invariant: "INV-8", Check: "every hook Argo CD ran or keeps is one the platform declares", Status: "fail", Detail: "1 hook no hook block declares: app " + first.Name + ": batch/Job ns/wait-for-db (PreSync); declare each in its app (hook \"NAME\" { phase, purpose, manifest }) if it does work inside the app, or delete it and order apps with depends_on"},
	}
	if diff := cmp.Diff(want, r.rep.Compliance); diff != "" {
		t.Errorf("compliance (-want +got):\n%s", diff)
	}
}
