package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"platc": func() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the CLI scenarios in testdata/script: behaviour and
// text. Exact exit codes are pinned by TestExitCodes, since testscript
// only sees success or failure.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
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
		{"lint clean", []string{"lint", good}, exitOK},
		{"lint json clean", []string{"lint", "--format", "json", good}, exitOK},
		{"lint cycle", []string{"lint", cyclic}, exitInvalid},
		{"lint syntax error", []string{"lint", broken}, exitInvalid},
		{"lint missing path", []string{"lint", filepath.Join(dir, "nope.hcl")}, exitInvalid},
		{"lint empty directory", []string{"lint", t.TempDir()}, exitInvalid},
		{"lint bad format", []string{"lint", "--format", "yaml", good}, exitInvalid},
		{"lint flag after path", []string{"lint", good, "--format", "json"}, exitOK},
		{"lint flag after path, bad value", []string{"lint", good, "--format", "yaml"}, exitInvalid},
		{"lint flag after path, no value", []string{"lint", good, "--format"}, exitInvalid},
		{"lint two paths", []string{"lint", good, cyclic}, exitInvalid},
		{"lint unknown flag", []string{"lint", "--colour", good}, exitInvalid},
		{"plan", []string{"plan", good}, exitOK},
		{"plan json", []string{"plan", "--format", "json", good}, exitOK},
		{"plan unknown env", []string{"plan", "--env", "staging", good}, exitInvalid},
		{"plan cycle", []string{"plan", cyclic}, exitInvalid},
		{"graph dot", []string{"graph", good}, exitOK},
		{"graph mermaid", []string{"graph", "--format", "mermaid", good}, exitOK},
		{"graph json", []string{"graph", "--format", "json", good}, exitOK},
		{"graph bad format", []string{"graph", "--format", "svg", good}, exitInvalid},
		{"graph cycle", []string{"graph", cyclic}, exitInvalid},
		{"import", []string{"import", importOK}, exitOK},
		{"import json", []string{"import", "--format", "json", importOK}, exitOK},
		{"import partial input", []string{"import", importPartial}, exitFailure},
		{"import no Application", []string{"import", importNothing}, exitInvalid},
		{"import missing path", []string{"import", filepath.Join(dir, "nope")}, exitInvalid},
		{"import no path", []string{"import"}, exitInvalid},
		{"import bad format", []string{"import", "--format", "yaml", importOK}, exitInvalid},
		{"import out not empty", []string{"import", "--out", importOK, importOK}, exitInvalid},
		{"version", []string{"version"}, exitOK},
		{"version with argument", []string{"version", "extra"}, exitInvalid},
		{"help", []string{"--help"}, exitOK},
		{"no command", nil, exitOK},
		{"unknown command", []string{"deplyo"}, exitInvalid},
		{"help command", []string{"help", "lint"}, exitOK},
		{"help unknown command", []string{"help", "lnt"}, exitInvalid},
		{"command --help", []string{"lint", "--help"}, exitOK},
		{"--version", []string{"--version"}, exitOK},
		{"completion bash", []string{"completion", "bash"}, exitOK},
		{"completion zsh", []string{"completion", "zsh"}, exitOK},
		{"completion fish", []string{"completion", "fish"}, exitOK},
		{"completion without shell", []string{"completion"}, exitInvalid},
		{"completion unknown shell", []string{"completion", "tcsh"}, exitInvalid},
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
