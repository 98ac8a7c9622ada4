package hostile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/importer"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
	"github.com/platc/platc/manifest"
)

// refs is n aliases of anchor, comma-separated.
func refs(anchor string, n int) string {
	return strings.TrimSuffix(strings.Repeat("*"+anchor+", ", n), ", ")
}

// yamlBombs are about a kilobyte each and stand for 9^9 nodes or more,
// or for a document that never ends (issue 21). bombLine is where the
// decoder refuses each.
var yamlBombs = map[string]struct {
	src  string
	line int
}{
	// The classic, in a ConfigMap's data.
	"laughs.yaml": {func() string {
		s := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a0: &a0 [\"lol\"]\n"
		for i := 1; i <= 9; i++ {
			s += fmt.Sprintf("  a%d: &a%d [%s]\n", i, i, refs(fmt.Sprintf("a%d", i-1), 9))
		}
		return s
	}(), 10},
	// A List whose items are Lists of aliases: every reader that
	// collects a List's objects multiplies them.
	"list.yaml": {func() string {
		s := "apiVersion: v1\nkind: List\nitems:\n- &l0 {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n"
		for i := 1; i <= 9; i++ {
			s += fmt.Sprintf("- &l%d {apiVersion: v1, kind: List, items: [%s]}\n", i, refs(fmt.Sprintf("l%d", i-1), 9))
		}
		return s
	}(), 8},
	// An anchor holding an alias to itself: a walk that follows aliases
	// never ends.
	"cycle.yaml": {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata: &d\n  self: *d\n", 6},
}

// bombFiles puts every bomb under manifests/, with more files.
func bombFiles(more map[string]string) map[string]string {
	files := map[string]string{}
	for name, b := range yamlBombs {
		files["manifests/"+name] = b.src
	}
	for name, data := range more {
		files[name] = data
	}
	return files
}

// within fails the test when f runs longer than a bomb could be refused
// in; before issue 21 each of these ran until memory was exhausted.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s ran for more than 30s", what)
	}
}

// wantAliasDiag checks diags refuse every bomb at its file:line:column.
func wantAliasDiag(t *testing.T, diags hcl.Diagnostics) {
	t.Helper()
	for name, b := range yamlBombs {
		found := false
		for _, d := range diags {
			if d.Summary == manifest.AliasesRefused && d.Subject != nil && filepath.Base(d.Subject.Filename) == name {
				found = true
				if d.Subject.Start.Line != b.line || d.Subject.Start.Column < 1 || !strings.Contains(d.Detail, "Write the repeated values out") {
					t.Errorf("%s refused at %d:%d (%s), want line %d with a fix", name, d.Subject.Start.Line, d.Subject.Start.Column, d.Detail, b.line)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %q diagnostic in %v", name, manifest.AliasesRefused, diags)
		}
	}
}

// TestYAMLAliasBombScan: lint --scan reads every bomb, refuses it at its
// line and runs every rule on what is left.
func TestYAMLAliasBombScan(t *testing.T) {
	dir := writeDir(t, bombFiles(nil))
	within(t, "lint --scan", func() {
		set, diags := manifest.Load(filepath.Join(dir, "manifests"))
		wantAliasDiag(t, diags)
		m, pd := lang.ParseSources([]lang.SourceFile{{Name: filepath.Join(dir, "platform.hcl"), Bytes: []byte(header)}})
		if pd.HasErrors() {
			t.Fatal(pd)
		}
		progs, cd := compiler.CompileAll(m, compiler.Options{})
		if cd.HasErrors() {
			t.Fatal(cd)
		}
		if _, err := lint.Run(lint.Config{Module: m, Programs: progs, Manifests: set, Rules: rules.All()}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestYAMLAliasBombHookManifest: a hook manifest an HCL file names is a
// bomb; lint reports it at the hook's manifest attribute, with the
// manifest's own line as the related location.
func TestYAMLAliasBombHookManifest(t *testing.T) {
	for name, b := range yamlBombs {
		t.Run(name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{
				"platform.hcl": header + chartApp(`hook "m" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "`+name+`"
  }`, ""),
				name: b.src,
			})
			within(t, "lint", func() {
				m, diags := lang.Parse(dir)
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				progs, diags := compiler.CompileAll(m, compiler.Options{})
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				found, err := lint.Run(lint.Config{Module: m, Programs: progs, Rules: rules.All()})
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range found {
					if !strings.Contains(d.Summary, "uses aliases platc refuses to expand") {
						continue
					}
					ex, _ := d.Extra.(*diag.Extra)
					if d.Subject == nil || filepath.Base(d.Subject.Filename) != "platform.hcl" || ex == nil || len(ex.Related) != 1 ||
						filepath.Base(ex.Related[0].Range.Filename) != name || ex.Related[0].Range.Start.Line != b.line {
						t.Errorf("finding %v, related %+v: want it at the hook, related to %s:%d", d, ex, name, b.line)
					}
					return
				}
				t.Errorf("no finding about the bomb: %v", found)
			})
		})
	}
}

// TestYAMLAliasBombImport: platc import of a repository holding the
// bombs, an Application whose inline Helm values are one, and an
// ApplicationSet whose template is one: refused with errors at the
// files' lines, never run away.
func TestYAMLAliasBombImport(t *testing.T) {
	bomb := yamlBombs["laughs.yaml"].src
	indent := func(s, pad string) string {
		return pad + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+pad)
	}
	files := map[string]string{
		"root.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: root
  namespace: argocd
spec:
  source:
    repoURL: https://git.example.com/bomb.git
    targetRevision: v1
    path: manifests
  destination:
    server: https://kubernetes.default.svc
    namespace: argocd
`,
		"manifests/values-app.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: values-bomb
  namespace: argocd
spec:
  source:
    repoURL: https://charts.example.com
    chart: web
    targetRevision: 1.0.0
    helm:
      values: |
` + indent(bomb, "        ") + `
  destination:
    server: https://kubernetes.default.svc
    namespace: web
`,
		"manifests/appset.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: set
  namespace: argocd
spec:
  generators:
  - list:
      elements: [{n: a}, {n: b}]
  template:
    metadata:
      name: '{{n}}'
    spec:
      source: {repoURL: https://git.example.com/x.git, targetRevision: v1, path: x}
      destination: {server: https://kubernetes.default.svc, namespace: '{{n}}'}
      info:
      - &t0 ["x"]
` + func() string {
			s := ""
			for i := 1; i <= 9; i++ {
				s += fmt.Sprintf("      - &t%d [%s]\n", i, refs(fmt.Sprintf("t%d", i-1), 9))
			}
			return s
		}(),
	}
	dir := writeDir(t, bombFiles(files))
	within(t, "import", func() {
		_, diags, err := importer.Import([]string{dir}, importer.Options{OutDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var refused []string
		values := false
		for _, d := range diags {
			if d.Summary == "Unreadable Helm values" && strings.Contains(d.Detail, "aliases expand") && d.Subject != nil {
				values = true
			}
			if d.Summary == manifest.AliasesRefused {
				if d.Severity != hcl.DiagError || d.Subject == nil || d.Subject.Start.Line < 1 {
					t.Errorf("%v: want an error at a line", d)
				}
				refused = append(refused, filepath.Base(d.Subject.Filename))
			}
		}
		// The three bombs and the ApplicationSet; the Application's values
		// string is text the decoder refuses when it reads it.
		if !values {
			t.Errorf("the Helm values string was not refused: %v", diags)
		}
		for _, name := range []string{"laughs.yaml", "list.yaml", "cycle.yaml", "appset.yaml"} {
			if !strings.Contains(strings.Join(refused, " "), name) {
				t.Errorf("%s not refused (refused: %v)", name, refused)
			}
		}
	})
}
