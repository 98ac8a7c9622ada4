package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/platc/platc/internal/exitcode"
)

// TestTestExitCodes pins the exit codes of platc test, which testscript
// cannot see: 0 all pass (or nothing to run), 1 a test fails, 3 invalid
// platform, test or arguments.
func TestTestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string { return writeFile(t, dir, name, src) }
	write("ready.yaml", "apiVersion: x.io/v1\nkind: W\nmetadata: {name: w}\nstatus: {ready: true}\n")
	rule := func(want string) string {
		return `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
health "x.io/W" {
  healthy = obj.status.ready == true
  test "t" {
    object = "ready.yaml"
    want   = "` + want + `"
  }
}
`
	}
	pass := write("pass.hcl", rule("Healthy"))
	fail := write("fail.hcl", rule("Degraded"))
	badWant := write("badwant.hcl", rule("Green"))
	none := write("none.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
`)
	missing := write("missing.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
health "x.io/W" {
  healthy = true
  test "t" {
    object = "nope.yaml"
    want   = "Healthy"
  }
}
`)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"all pass", []string{"test", pass}, exitcode.OK},
		{"all pass with built-ins", []string{"test", "--builtin", pass}, exitcode.OK},
		{"nothing to run", []string{"test", none}, exitcode.OK},
		{"a test fails", []string{"test", fail}, exitcode.Failure},
		{"invalid want", []string{"test", badWant}, exitcode.Invalid},
		{"missing sample", []string{"test", missing}, exitcode.Invalid},
		{"unknown environment", []string{"test", "--env", "staging", pass}, exitcode.Invalid},
		{"flag after path", []string{"test", pass, "--builtin"}, exitcode.OK},
		{"missing platform", []string{"test", filepath.Join(dir, "nope.hcl")}, exitcode.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"platc"}, tc.args...), &stdout, &stderr); got != tc.want {
				t.Errorf("platc %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, got, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}
