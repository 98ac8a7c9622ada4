package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dagPlatform: a layered platform, data before web, and a top-level app.
const dagPlatform = `
platform "acme" {
  git {
    repo_url = "https://git.example.com/a.git"
    revision = "main"
  }
}
environment "production" {
  domain = "example.com"
}
stack "data" {
  app "postgres" {
    namespace = "db"
  }
  app "cache" {
    namespace  = "cache"
    depends_on = [app.postgres]
  }
}
stack "web" {
  depends_on = [stack.data]
  app "api" {
    namespace  = "api"
    depends_on = [app.metrics]
  }
}
app "metrics" {
  namespace = "metrics"
}
`

func dagSetup(t *testing.T, action Action, dag string) Input {
	in := setup(t, "")
	dir := filepath.Dir(in.PlatformPath)
	if err := os.WriteFile(in.PlatformPath, []byte(dagPlatform), 0o600); err != nil {
		t.Fatal(err)
	}
	in.Action = action
	if action == Teardown {
		in.TeardownConfirm = "acme"
	}
	in.DagFile = filepath.Join(dir, "dag.yaml")
	if err := os.WriteFile(in.DagFile, []byte(dag), 0o600); err != nil {
		t.Fatal(err)
	}
	return in
}

func scopeNames(cfg *Config) []string {
	var out []string
	for _, a := range cfg.ScopeApps {
		out = append(out, a.Name)
	}
	return out
}

// A DAG customization is compiled into the run's Program: the subset
// chooses the apps (with their dependencies, or for teardown their
// dependents, when asked), dependencies are added and removed, and
// timeouts and retries land on the app.
func TestDagFileApplies(t *testing.T) {
	cfg, p := Load(dagSetup(t, Deploy, `subset:
  apps: [api]
  includeDependencies: true
dependencies:
  add:
    - {app: metrics, dependsOn: cache}
  remove:
    - {app: api, dependsOn: metrics}
timeouts:
  api: {sync: 3m, health: 7m}
retries:
  api: {maxAttempts: 5, backoff: 20s}
`))
	if !p.Empty() {
		t.Fatalf("problems: %v %v", p.Errors, p.Diags)
	}
	if cfg.Scope.Kind != ScopeDag || cfg.Scope.String() != "dag:"+cfg.DagFile.Sum || len(cfg.DagFile.Sum) != 12 {
		t.Errorf("scope %s, want dag:<sum>", cfg.Scope)
	}
	// api needs data through its stack; metrics is no longer its
	// dependency, so it is not chosen.
	if got, want := scopeNames(cfg), []string{"postgres", "cache", "api"}; !slices.Equal(got, want) {
		t.Errorf("apps %v, want %v", got, want)
	}
	api, metrics := cfg.Program.App("api"), cfg.Program.App("metrics")
	for _, d := range api.Deps {
		if d.App.Name == "metrics" {
			t.Error("the removed dependency api → metrics is still there")
		}
	}
	if len(metrics.Deps) != 1 || metrics.Deps[0].App.Name != "cache" {
		t.Errorf("metrics depends on %v, want cache", metrics.Deps)
	}
	if api.Timeouts.Sync != 3*time.Minute || api.Timeouts.Health != 7*time.Minute || api.Retry.Limit != 4 || api.Retry.Backoff != 20*time.Second {
		t.Errorf("api's timeouts %+v and retry %+v, want 3m/7m and 4 retries after 20s", api.Timeouts, api.Retry)
	}

	// Teardown: the subset brings its dependents, which go first.
	cfg, p = Load(dagSetup(t, Teardown, "subset: {stacks: [data], includeDependencies: true}\n"))
	if !p.Empty() {
		t.Fatalf("problems: %v %v", p.Errors, p.Diags)
	}
	if got, want := scopeNames(cfg), []string{"postgres", "cache", "api"}; !slices.Equal(got, want) {
		t.Errorf("teardown apps %v, want %v", got, want)
	}
	// Without a subset, every app, compiled with the changes.
	cfg, p = Load(dagSetup(t, Deploy, "timeouts: {cache: {health: 1m}}\n"))
	if !p.Empty() || len(cfg.ScopeApps) != 4 || cfg.Program.App("cache").Timeouts.Health != time.Minute {
		t.Errorf("no subset: %v %v, apps %v", p.Errors, p.Diags, scopeNames(cfg))
	}
}

// Every problem of a DAG customization is a diagnostic at its line and
// column in the file, all of them at once, with a way to fix it.
func TestDagFileProblems(t *testing.T) {
	for _, c := range []struct {
		name, dag string
		want      []string // "line:col summary|detail fragment"
	}{
		{"unknown keys and types", "subset:\n  app: [api]\ntimeout: {}\nretries:\n  api: {maxAttempts: 0}\n", []string{
			"2:3 Unknown key in the DAG customization|Did you mean \"apps\"?",
			"3:1 Unknown key in the DAG customization|Did you mean \"timeouts\"?",
			"5:22 Invalid retries in the DAG customization|from 1 to 100",
		}},
		{"unknown names", "subset: {stacks: [dta], apps: [apii]}\n", []string{
			"1:19 Unknown stack in the DAG customization|Did you mean \"data\"?",
			"1:32 Unknown app in the DAG customization|Did you mean \"api\"?",
		}},
		{"unknown app in a change", "timeouts:\n  cahce: {sync: 1m}\ndependencies:\n  add:\n    - {app: api, dependsOn: postgress}\n", []string{
			"2:3 Unknown app in the DAG customization|Did you mean \"cache\"?",
			"5:29 Unknown app in the DAG customization|Did you mean \"postgres\"?",
		}},
		{"stack edge", "dependencies:\n  remove:\n    - {app: api, dependsOn: cache}\n", []string{
			"3:7 Dependency cannot be removed|through stack web's depends_on (stack.data",
		}},
		{"no such edge", "dependencies:\n  remove:\n    - {app: cache, dependsOn: metrics}\n", []string{
			"3:7 Dependency cannot be removed|its own dependencies are app.postgres",
		}},
		{"cycle", "dependencies:\n  add:\n    - {app: postgres, dependsOn: api}\n", []string{
			// The compiler's cycle report, at the added edge.
			"3:34 Dependency cycle|app.postgres depends on app.api",
		}},
		{"bad duration", "timeouts: {api: {sync: soon}}\n", []string{
			"1:24 Invalid duration in the DAG customization|positive duration",
		}},
		{"not YAML", "subset: [\n", []string{"2:1 DAG customization is not valid YAML|"}},
		// An alias inside its own anchor: refused where the alias is.
		{"alias loop", "subset: &a {apps: [*a]}\n", []string{"1:20 DAG customization is not valid YAML|*a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := dagSetup(t, Deploy, c.dag)
			_, p := Load(in)
			if p.Empty() {
				t.Fatal("no problem reported")
			}
			var got []string
			for _, d := range p.Diags {
				if d.Subject != nil && d.Subject.Filename == in.DagFile {
					got = append(got, fmt.Sprintf("%d:%d %s|%s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
				}
			}
			for _, w := range c.want {
				at, rest, _ := strings.Cut(w, " ")
				summary, detail, _ := strings.Cut(rest, "|")
				found := false
				for _, g := range got {
					if strings.HasPrefix(g, at+" ") && strings.Contains(g, summary) && strings.Contains(g, detail) {
						found = true
					}
				}
				if !found {
					t.Errorf("no diagnostic %q among:\n%s", w, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// A DAG customization chooses its apps itself: with a TARGET_SCOPE it is
// refused; named by DAG_CONFIG, it must exist.
func TestDagFileConflicts(t *testing.T) {
	in := dagSetup(t, Deploy, "subset: {apps: [api]}\n")
	in.TargetScope = "stack:data"
	if _, p := Load(in); !slices.ContainsFunc(p.Errors, func(e string) bool { return strings.Contains(e, "Unset TARGET_SCOPE and write the scope as subset") }) {
		t.Errorf("TARGET_SCOPE with a DAG file: %v", p.Errors)
	}
	in = dagSetup(t, Deploy, "")
	in.DagFile += ".missing"
	if _, p := Load(in); !slices.ContainsFunc(p.Errors, func(e string) bool { return strings.Contains(e, "dag.yaml.missing") }) {
		t.Errorf("a missing DAG_CONFIG: %v", p.Errors)
	}
}
