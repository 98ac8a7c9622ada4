package compiler

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

const header = `
platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
`

func parse(t testing.TB, src string) *lang.Module {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(header + src)}})
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	return m
}

func compile(t testing.TB, src string) *ir.Program {
	t.Helper()
	p, diags := Compile(parse(t, src), Options{})
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	return p
}

func compileErrors(t testing.TB, src string) hcl.Diagnostics {
	t.Helper()
	p, diags := Compile(parse(t, src), Options{})
	if !diags.HasErrors() {
		t.Fatalf("expected errors, got none")
	}
	if p != nil {
		t.Errorf("Compile returned a Program despite errors")
	}
	return diags
}

func names(apps []*ir.App) []string {
	out := make([]string, len(apps))
	for i, a := range apps {
		out[i] = a.Name
	}
	return out
}

func TestPrecedence(t *testing.T) {
	p := compile(t, `
defaults {
  timeouts {
    sync   = "1m"
    health = "2m"
  }
  retry { limit = 5 }
  teardown { volumes = "delete" }
}
class "slow" {
  timeouts { sync = "20m" }
}
stack "s" {
  class = "slow"
  timeouts { health = "7m" }
  app "inherits" {}
  app "own" {
    class = "operator"
    timeouts { health = "3m" }
    retry { limit = 0 }
  }
}
app "bare" {}
`)
	type got struct {
		Sync, Health time.Duration
		Limit        int
		Volumes      ir.VolumePolicy
		From         ir.SettingSources
		Class        string
	}
	check := func(name string, want got) {
		t.Helper()
		a := p.App(name)
		g := got{a.Timeouts.Sync, a.Timeouts.Health, a.Retry.Limit, a.Teardown.Volumes, a.From, a.Class}
		// Only the levels of the settings under test are compared.
		g.From = ir.SettingSources{SyncTimeout: a.From.SyncTimeout, HealthTimeout: a.From.HealthTimeout, RetryLimit: a.From.RetryLimit, Volumes: a.From.Volumes, Backoff: a.From.Backoff}
		if diff := cmp.Diff(want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	// The stack's class sits above the stack's own settings (class >
	// stack), and what the class leaves unset falls through to the stack.
	check("inherits", got{20 * time.Minute, 7 * time.Minute, 5, "delete",
		ir.SettingSources{SyncTimeout: ir.FromClass, HealthTimeout: ir.FromStack, RetryLimit: ir.FromDefaults, Volumes: ir.FromDefaults, Backoff: ir.FromBuiltIn}, "slow"})
	// The app's own class replaces the stack's; the app beats the class.
	check("own", got{10 * time.Minute, 3 * time.Minute, 0, "delete",
		ir.SettingSources{SyncTimeout: ir.FromClass, HealthTimeout: ir.FromApp, RetryLimit: ir.FromApp, Volumes: ir.FromDefaults, Backoff: ir.FromBuiltIn}, "operator"})
	check("bare", got{1 * time.Minute, 2 * time.Minute, 5, "delete",
		ir.SettingSources{SyncTimeout: ir.FromDefaults, HealthTimeout: ir.FromDefaults, RetryLimit: ir.FromDefaults, Volumes: ir.FromDefaults, Backoff: ir.FromBuiltIn}, ""})
}

// A declared class named like a built-in overrides only what it sets; the
// rest stays the built-in's (RFC 3.8.5).
func TestClassOverridesBuiltIn(t *testing.T) {
	p := compile(t, `
class "storage-cluster" {
  timeouts { health = "45m" }
}
app "ceph" { class = "storage-cluster" }
`)
	a := p.App("ceph")
	if a.Timeouts.Sync != 30*time.Minute || a.Timeouts.Health != 45*time.Minute {
		t.Errorf("timeouts = %v/%v, want 30m/45m", a.Timeouts.Sync, a.Timeouts.Health)
	}
	if a.ExpectedDuration != 20*time.Minute {
		t.Errorf("expected duration = %v, want the built-in 20m", a.ExpectedDuration)
	}
}

func TestTopologicalOrderAndWaves(t *testing.T) {
	p := compile(t, `
app "zeta" {}
app "alpha" { depends_on = [app.zeta] }
app "mid" {}
app "beta" { depends_on = [app.zeta, app.mid] }
app "omega" { depends_on = [app.beta, app.alpha] }
`)
	// Ready apps are taken smallest name first; an app follows all its deps.
	if diff := cmp.Diff([]string{"mid", "zeta", "alpha", "beta", "omega"}, names(p.Apps)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	var waves [][]string
	for _, w := range p.Waves {
		waves = append(waves, names(w))
	}
	if diff := cmp.Diff([][]string{{"mid", "zeta"}, {"alpha", "beta"}, {"omega"}}, waves); diff != "" {
		t.Errorf("waves (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"alpha", "beta"}, names(p.App("zeta").Dependents)); diff != "" {
		t.Errorf("reverse edges of zeta (-want +got):\n%s", diff)
	}
	for i, a := range p.Apps {
		if a.Index != i {
			t.Errorf("%s.Index = %d, want %d", a.Name, a.Index, i)
		}
	}
}

// Declaration order must not leak into the order: shuffling files gives
// the same Program order.
func TestOrderIndependentOfFileOrder(t *testing.T) {
	a := lang.SourceFile{Name: "a.hcl", Bytes: []byte(header + `app "x" {}` + "\n" + `app "b" { depends_on = [app.x] }`)}
	b := lang.SourceFile{Name: "b.hcl", Bytes: []byte(`app "a" {}` + "\n" + `app "c" { depends_on = [app.a, app.b] }`)}
	var orders [][]string
	for _, files := range [][]lang.SourceFile{{a, b}, {b, a}} {
		m, diags := lang.ParseSources(files)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		p, diags := Compile(m, Options{})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		orders = append(orders, names(p.Apps))
	}
	if diff := cmp.Diff(orders[0], orders[1]); diff != "" {
		t.Errorf("order depends on file order (-first +second):\n%s", diff)
	}
}

func TestStackDependencies(t *testing.T) {
	p := compile(t, `
stack "base" {
  app "a" {}
  app "b" {}
}
stack "top" {
  depends_on = [stack.base, app.c]
  app "c" {}
  app "d" { depends_on = [app.a] }
}
`)
	deps := func(name string) []string {
		var out []string
		for _, d := range p.App(name).Deps {
			out = append(out, d.Via+"→"+d.App.Name)
		}
		return out
	}
	// c is named in its own stack's depends_on: the others wait for it,
	// it does not wait for itself.
	if diff := cmp.Diff([]string{"stack.base→a", "stack.base→b"}, deps("c")); diff != "" {
		t.Errorf("c deps (-want +got):\n%s", diff)
	}
	// d's own app.a comes first and is not duplicated by stack.base.
	if diff := cmp.Diff([]string{"app.a→a", "stack.base→b", "app.c→c"}, deps("d")); diff != "" {
		t.Errorf("d deps (-want +got):\n%s", diff)
	}
	for _, d := range p.App("d").Deps {
		if d.Via == "app.a" && d.FromStack {
			t.Errorf("app.a is d's own dependency, not the stack's")
		}
		if d.Range.Start.Line == 0 {
			t.Errorf("edge %s has no source range", d.Via)
		}
	}
	if got := p.Stack("top").DependsOn; len(got) != 1 || got[0].Name != "base" {
		t.Errorf("stack top depends on %v, want [base]", got)
	}
}

// The three hops of a cycle start at the first-declared member (b here,
// though a sorts first) and each points at the line of its depends_on.
func TestCycleHops(t *testing.T) {
	diags := compileErrors(t, `
app "b" {
  depends_on = [app.c]
}
app "a" {
  depends_on = [app.b]
}
app "c" {
  depends_on = [app.a]
}
`)
	if len(diags) != 1 || diags[0].Summary != "Dependency cycle" {
		t.Fatalf("want one cycle diagnostic, got: %s", diags.Error())
	}
	lines := strings.Split(diags[0].Detail, "\n")
	want := []string{
		"  app.b depends on app.c  platform.hcl:7:17",
		"  app.c depends on app.a  platform.hcl:13:17",
		"  app.a depends on app.b  platform.hcl:10:17",
	}
	if diff := cmp.Diff(want, lines[1:4]); diff != "" {
		t.Errorf("hops (-want +got):\n%s", diff)
	}
	if diags[0].Subject.Start.Line != 7 {
		t.Errorf("subject on line %d, want 7 (the first hop)", diags[0].Subject.Start.Line)
	}
}

func TestEnvironmentsAndInterpolation(t *testing.T) {
	m := parse(t, `
environment "staging" {
  domain = "staging.example.com"
  replicas = 1
}
environment "production" {
  domain = "example.com"
  replicas = 3
}
app "web" {
  namespace = "web"
  source {
    path = "apps/web"
    helm {
      values = {
        host     = "web.${env.domain}"
        replicas = env.replicas
        repo     = platform.git.repo_url
        env      = upper(env.name)
      }
    }
  }
}
`)
	p, diags := Compile(m, Options{Env: "production"})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := p.App("web").Source.Helm.Values
	want := map[string]any{"host": "web.example.com", "replicas": "3", "repo": "https://git.example.com/platform.git", "env": "PRODUCTION"}
	if diff := cmp.Diff(want, stringify(got)); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if s := p.App("web").Source; s.TargetRevision != "HEAD" || s.RepoURL != "https://git.example.com/platform.git" {
		t.Errorf("path source defaults: repo %q revision %q", s.RepoURL, s.TargetRevision)
	}
	if diff := cmp.Diff([]string{"staging", "production"}, p.Environments); diff != "" {
		t.Errorf("environments (-want +got):\n%s", diff)
	}
	progs, diags := CompileAll(m, Options{})
	if diags.HasErrors() || len(progs) != 2 || progs[0].Env.Name != "staging" {
		t.Errorf("CompileAll: %d programs, %s", len(progs), diags.Error())
	}
}

func stringify(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = strings.Trim(strings.TrimSpace(toString(v)), `"`)
	}
	return out
}

func toString(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// An expression that fails in one environment only is still an error,
// because lint compiles every environment.
func TestCompileAllFindsEnvironmentSpecificErrors(t *testing.T) {
	m := parse(t, `
environment "staging" { domain = "staging.example.com" }
environment "production" {}
app "web" {
  namespace = "web"
  source {
    path = "apps/web"
    helm {
      values = { host = env.domain }
    }
  }
}
`)
	if _, diags := Compile(m, Options{Env: "staging"}); diags.HasErrors() {
		t.Fatalf("staging should compile: %s", diags.Error())
	}
	_, diags := CompileAll(m, Options{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `"domain"`) {
		t.Errorf("CompileAll should report env.domain missing in production, got: %v", diags)
	}
	if _, diags := Compile(m, Options{Env: "prod"}); !strings.Contains(diags.Error(), `Did you mean "production"?`) {
		t.Errorf("unknown environment should suggest production, got: %v", diags)
	}
}

func TestHooksAndCustomResources(t *testing.T) {
	p := compile(t, `
app "harbor" {
  custom_resources = ["ceph.rook.io/CephCluster", "ceph.rook.io/CephCluster", "example.com/Widget"]
  hook "migrate" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "hooks/migrate.yaml"
  }
}
health "example.com/Widget" {
  healthy = true
}
`)
	a := p.App("harbor")
	if len(a.CustomResources) != 2 {
		t.Errorf("custom resources not de-duplicated: %v", a.CustomResources)
	}
	var rules []string
	for _, h := range p.Health {
		rules = append(rules, h.Key()+"="+string(h.Origin))
	}
	if diff := cmp.Diff([]string{"argoproj.io/Application=built-in", "ceph.rook.io/CephCluster=built-in", "example.com/Widget=user"}, rules); diff != "" {
		t.Errorf("health rules (-want +got):\n%s", diff)
	}
	if len(a.Hooks) != 1 || a.Hooks[0].Purpose != "migration" || a.Hooks[0].Dir != "." {
		t.Errorf("hooks = %+v", a.Hooks)
	}
}

// A huge number is rejected quickly and printed briefly (printing it in
// full took seconds, which the fuzzer found in the health compiler).
func TestHugeNumberReportedBriefly(t *testing.T) {
	diags := compileErrors(t, `
app "web" {
  retry { limit = 1e9000090 }
}
`)
	if len(diags) != 1 || !strings.Contains(diags[0].Detail, "got a number far out of range.") {
		t.Errorf("got: %v", diags)
	}
}

// A missing env.* attribute names the environment that lacks it, where
// it is declared, which environments do have it and the nearest name;
// without any environment block the message says so instead of listing
// env.name as if it were an attribute.
func TestEnvironmentMessages(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		env       string
		want      []string
		not       []string
	}{
		{"no environment block", `app "a" { namespace = env.domain }`, "", []string{
			"The platform declares no environment block, so env.* holds only env.name (\"default\") and env.domain does not exist.",
			`environment "production" { domain = "..." }`,
		}, []string{"This environment has"}},
		{"one of two lacks it", `
environment "prod" { domain = "example.com" }
environment "dev" { cluster_name = "dev-1" }
app "a" { namespace = env.domain }`, "dev", []string{
			`Environment "dev" (platform.hcl:7:1) does not declare "domain"; environment "prod" does.`,
			"It declares cluster_name (and env.name, its label).",
			`add domain = ... to environment "dev".`,
		}, nil},
		{"typo", `
environment "prod" { domain = "example.com" }
app "a" { namespace = env.domian }`, "", []string{
			`Environment "prod" (platform.hcl:6:1) does not declare "domian".`,
			"Did you mean env.domain?",
		}, []string{"add domian"}},
		{"unknown implicit environment", `app "a" {}`, "prod", []string{
			`The platform declares no environment blocks, so it has only the implicit environment "default". Declare environment "prod" { ... }`,
		}, []string{"Declared environments: default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Compile(parse(t, tc.src), Options{Env: tc.env})
			got := diags.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("%q in:\n%s", n, got)
				}
			}
		})
	}
}
