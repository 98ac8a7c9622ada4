package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
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
		{"all pass", []string{"test", pass}, exitOK},
		{"all pass with built-ins", []string{"test", "--builtin", pass}, exitOK},
		{"nothing to run", []string{"test", none}, exitOK},
		{"a test fails", []string{"test", fail}, exitFailure},
		{"invalid want", []string{"test", badWant}, exitInvalid},
		{"missing sample", []string{"test", missing}, exitInvalid},
		{"unknown environment", []string{"test", "--env", "staging", pass}, exitInvalid},
		{"flag after path", []string{"test", pass, "--builtin"}, exitOK},
		{"missing platform", []string{"test", filepath.Join(dir, "nope.hcl")}, exitInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"platc"}, tc.args...), &stdout, &stderr); got != tc.want {
				t.Errorf("platc %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, got, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}

// TestReadmeHealthExample runs the README's health rule example with
// `platc test`: the rule, its test and its sample must pass as written.
func TestReadmeHealthExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```hcl\n(health .*?)```\n\nwith `([^`]+)` next to the file:\n\n```yaml\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no health rule example followed by its sample")
	}
	dir := t.TempDir()
	platform := "platform \"acme\" {\n  git { repo_url = \"https://git.example.com/platform.git\" }\n}\n" + string(m[1])
	for name, data := range map[string]string{"platform.hcl": platform, string(m[2]): string(m[3])} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "test", filepath.Join(dir, "platform.hcl")}, &stdout, &stderr); code != exitOK {
		t.Fatalf("README health example: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if want := "1 passed, 0 failed\n"; !bytes.HasSuffix(stdout.Bytes(), []byte(want)) {
		t.Errorf("README health example: output %q", stdout.String())
	}
}
