package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/golden"
)

// The scripts run platc as a release, v1.2.3, as the linker would stamp
// it: what build writes names that release's image and must not change
// with every commit; platc-dev is a development build.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"platc": func() {
			version = "v1.2.3"
			os.Exit(run(os.Args, os.Stdout, os.Stderr))
		},
		"platc-dev": func() {
			version = "dev"
			os.Exit(run(os.Args, os.Stdout, os.Stderr))
		},
	})
}

// TestScript runs the CLI scenarios in testdata/script: behaviour and
// text. Exact exit codes are pinned by TestExitCodes, since testscript
// only sees success or failure.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       golden.Update(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition:           toolCondition,
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			// The import fixture is a whole repository tree, too large to
			// copy into a script; scripts read it where it is.
			acme, err := filepath.Abs("../../importer/testdata/acme")
			if err != nil {
				return err
			}
			e.Setenv("ACME", acme)
			return nil
		},
	})
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string { return writeFile(t, dir, name, src) }
	good := write("good.hcl", `platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}
environment "production" {}
app "db" {}
app "web" { depends_on = [app.db] }
`)
	cyclic := write("cyclic.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
app "a" { depends_on = [app.b] }
app "b" { depends_on = [app.a] }
`)
	broken := write("broken.hcl", "platform \"acme\" {\n")
	app := func(name, spec string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name + "\nspec:\n" + spec
	}
	src := "  source: {repoURL: https://charts.example.com, chart: web, targetRevision: 1.0.0}\n  destination: {server: https://kubernetes.default.svc, namespace: web}\n"
	importOK := filepath.Dir(write("import-ok/web.yaml", app("web", src)))
	importPartial := filepath.Dir(write("import-partial/web.yaml", app("web", src)))
	write("import-partial/cache.yaml", app("cache", "  destination: {namespace: cache}\n"))
	importNothing := filepath.Dir(write("import-nothing/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"))
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"lint clean", []string{"lint", good}, exitcode.OK},
		{"lint json clean", []string{"lint", "--format", "json", good}, exitcode.OK},
		{"lint cycle", []string{"lint", cyclic}, exitcode.Invalid},
		{"lint syntax error", []string{"lint", broken}, exitcode.Invalid},
		{"lint missing path", []string{"lint", filepath.Join(dir, "nope.hcl")}, exitcode.Invalid},
		{"lint empty directory", []string{"lint", t.TempDir()}, exitcode.Invalid},
		{"lint bad format", []string{"lint", "--format", "yaml", good}, exitcode.Invalid},
		{"lint flag after path", []string{"lint", good, "--format", "json"}, exitcode.OK},
		{"lint flag after path, bad value", []string{"lint", good, "--format", "yaml"}, exitcode.Invalid},
		{"lint flag after path, no value", []string{"lint", good, "--format"}, exitcode.Invalid},
		{"lint two paths", []string{"lint", good, cyclic}, exitcode.Invalid},
		{"lint unknown flag", []string{"lint", "--colour", good}, exitcode.Invalid},
		{"plan", []string{"plan", good}, exitcode.OK},
		{"plan json", []string{"plan", "--format", "json", good}, exitcode.OK},
		{"plan unknown env", []string{"plan", "--env", "staging", good}, exitcode.Invalid},
		{"plan cycle", []string{"plan", cyclic}, exitcode.Invalid},
		{"graph dot", []string{"graph", good}, exitcode.OK},
		{"graph mermaid", []string{"graph", "--format", "mermaid", good}, exitcode.OK},
		{"graph json", []string{"graph", "--format", "json", good}, exitcode.OK},
		{"graph bad format", []string{"graph", "--format", "svg", good}, exitcode.Invalid},
		{"graph cycle", []string{"graph", cyclic}, exitcode.Invalid},
		{"import", []string{"import", importOK}, exitcode.OK},
		{"import json", []string{"import", "--format", "json", importOK}, exitcode.OK},
		{"import partial input", []string{"import", importPartial}, exitcode.Failure},
		{"import no Application", []string{"import", importNothing}, exitcode.Invalid},
		{"import missing path", []string{"import", filepath.Join(dir, "nope")}, exitcode.Invalid},
		{"import no path", []string{"import"}, exitcode.Invalid},
		{"import bad format", []string{"import", "--format", "yaml", importOK}, exitcode.Invalid},
		{"import out not empty", []string{"import", "--out", importOK, importOK}, exitcode.Invalid},
		{"version", []string{"version"}, exitcode.OK},
		{"version with argument", []string{"version", "extra"}, exitcode.Invalid},
		{"help", []string{"--help"}, exitcode.OK},
		{"no command", nil, exitcode.OK},
		{"unknown command", []string{"deplyo"}, exitcode.Invalid},
		{"help command", []string{"help", "lint"}, exitcode.OK},
		{"help unknown command", []string{"help", "lnt"}, exitcode.Invalid},
		{"command --help", []string{"lint", "--help"}, exitcode.OK},
		{"--version", []string{"--version"}, exitcode.OK},
		{"completion bash", []string{"completion", "bash"}, exitcode.OK},
		{"completion zsh", []string{"completion", "zsh"}, exitcode.OK},
		{"completion fish", []string{"completion", "fish"}, exitcode.OK},
		{"completion without shell", []string{"completion"}, exitcode.Invalid},
		{"completion unknown shell", []string{"completion", "tcsh"}, exitcode.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"platc"}, tc.args...), &stdout, &stderr); got != tc.want {
				t.Errorf("platc %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, got, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}

// Colour never goes to something that is not a terminal, and never when
// NO_COLOR is set.
func TestNoColorOffTerminal(t *testing.T) {
	if colorFor(&bytes.Buffer{}) {
		t.Error("colour chosen for a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if colorFor(f) {
		t.Error("colour chosen for a regular file")
	}
}

// Colour only on a terminal, and never with --no-color, NO_COLOR or
// TERM=dumb (issue 25).
func TestColorPolicy(t *testing.T) {
	for _, tc := range []struct {
		terminal, flag bool
		env            map[string]string
		want           bool
	}{
		{true, false, nil, true},
		{false, false, nil, false},
		{true, true, nil, false},
		{true, false, map[string]string{"NO_COLOR": "1"}, false},
		{true, false, map[string]string{"TERM": "dumb"}, false},
		{true, false, map[string]string{"TERM": "xterm-256color"}, true},
	} {
		if got := colorPolicy(tc.terminal, tc.flag, func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("colorPolicy(terminal %v, --no-color %v, %v) = %v, want %v", tc.terminal, tc.flag, tc.env, got, tc.want)
		}
	}
}

// writeFile writes src to dir/name, making its directories, and returns
// the path.
func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
