package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/lang"
)

// The reader against an answer written by hand: stack references expand
// to the stack's apps, a stack's depends_on reaches each of its apps,
// files are read together, and a literal application attribute names the
// Application.
func TestReadDeclared(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.hcl", `
stack "base" {
  app "net" {}
  app "db" {
    depends_on = [app.net]
  }
}
stack "svc" {
  depends_on = [stack.base, app.queue]
  app "api" {
    depends_on = [app.cache]
  }
  app "queue" {}
}`)
	write("b.hcl", `
app "cache" {
  application = "cache-app"
}
app "web" {
  depends_on = [app.api, stack.base, app.net]
}`)
	write("ignored.txt", `app "nope" {}`)
	d, err := ReadDeclared(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := `cache → api
db → api
net → api
queue → api
net → db
db → queue
net → queue
api → web
db → web
net → web
`
	if got := d.String(); got != want {
		t.Errorf("edges:\n%s\nwant:\n%s", got, want)
	}
	if got := d.Application["cache"]; got != "cache-app" {
		t.Errorf("cache's Application is %q, want cache-app", got)
	}
	if got := d.Apps(); !slices.Equal(got, []string{"api", "cache", "db", "net", "queue", "web"}) {
		t.Errorf("apps %v", got)
	}
}

// The independent reader and platc's compiler agree on the platforms
// the scenarios deploy: a compiler that lost or invented an edge fails
// here, before any scenario runs.
func TestDeclaredAgreesWithCompiler(t *testing.T) {
	for _, path := range []string{"../examples", shop} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			d, err := ReadDeclared(path)
			if err != nil {
				t.Fatal(err)
			}
			m, diags := lang.Parse(path)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, env := range compiler.EnvNames(m) {
				p, diags := compiler.Compile(m, compiler.Options{Env: env})
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				var b strings.Builder
				apps := map[string]string{}
				for _, a := range p.Apps {
					apps[a.Name] = a.Application
				}
				for _, name := range d.Apps() {
					a := p.App(name)
					if a == nil {
						t.Fatalf("%s: app %s is declared but not compiled", env, name)
					}
					var deps []string
					for _, dep := range a.Deps {
						deps = append(deps, dep.App.Name)
					}
					slices.Sort(deps)
					for _, dep := range slices.Compact(deps) {
						fmt.Fprintf(&b, "%s → %s\n", dep, name)
					}
				}
				if len(apps) != len(d.Application) {
					t.Errorf("%s: the compiler has %d apps, the HCL declares %d", env, len(apps), len(d.Application))
				}
				for name, app := range d.Application {
					if apps[name] != app {
						t.Errorf("%s: app %s's Application is %q compiled, %q declared", env, name, apps[name], app)
					}
				}
				if got, want := b.String(), d.String(); got != want {
					t.Errorf("%s: compiled edges:\n%s\ndeclared:\n%s", env, got, want)
				}
			}
		})
	}
}

// Each order check reports an edge the timeline breaks, and nothing when
// it keeps them.
func TestOrderChecks(t *testing.T) {
	d := &Declared{Application: map[string]string{"db": "db", "api": "api-app"}, Deps: map[string][]string{"api": {"db"}}}
	at := func(s int) time.Time { return time.Unix(1000+int64(s), 0) }
	inOrder := []Event{{App: "db", Event: OperationStarted, At: at(0)}, {App: "db", Event: Healthy, At: at(1)}, {App: "api-app", Event: OperationStarted, At: at(2)}}
	early := []Event{{App: "db", Event: OperationStarted, At: at(0)}, {App: "api-app", Event: OperationStarted, At: at(1)}, {App: "db", Event: Healthy, At: at(2)}}
	if got := CheckDeployOrder(d, inOrder); len(got) != 0 {
		t.Errorf("deploy in order: %v", got)
	}
	if got := CheckDeployOrder(d, early); len(got) != 1 || !strings.Contains(got[0], "api started syncing") {
		t.Errorf("api started before db was Healthy: %v", got)
	}
	reverse := []Event{{App: "api-app", Event: Deleted, At: at(0)}, {App: "db", Event: Deleted, At: at(1)}}
	forward := []Event{{App: "db", Event: Deleted, At: at(0)}, {App: "api-app", Event: Deleted, At: at(1)}}
	if got := CheckTeardownOrder(d, reverse); len(got) != 0 {
		t.Errorf("teardown in reverse order: %v", got)
	}
	if got := CheckTeardownOrder(d, forward); len(got) != 1 || !strings.Contains(got[0], "db was deleted") {
		t.Errorf("db deleted before api: %v", got)
	}
}
