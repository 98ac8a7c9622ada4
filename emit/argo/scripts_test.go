package argo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptsLint runs bash -n and shellcheck on every step script as it
// is emitted (prelude included).
func TestScriptsLint(t *testing.T) {
	entries, err := scriptFS.ReadDir("scripts")
	if err != nil {
		t.Fatal(err)
	}
	// .ci/run installs shellcheck and sets PLATC_REQUIRE_SHELLCHECK, so CI
	// cannot pass without running it; elsewhere a missing shellcheck only
	// skips that half.
	shellcheck, lookErr := exec.LookPath("shellcheck")
	if lookErr != nil && os.Getenv("PLATC_REQUIRE_SHELLCHECK") != "" {
		t.Fatal("shellcheck is not installed (apt-get install shellcheck)")
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sh")
		if name == "prelude" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name+".sh")
			if err := os.WriteFile(p, []byte(script(name)), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command("bash", "-n", p).CombinedOutput(); err != nil {
				t.Fatalf("bash -n: %v\n%s", err, out)
			}
			if lookErr != nil {
				t.Skip("shellcheck not installed")
			}
			if out, err := exec.Command(shellcheck, "-s", "bash", p).CombinedOutput(); err != nil {
				t.Errorf("shellcheck: %v\n%s", err, out)
			}
		})
	}
}

// The scripts' behaviour against Argo CD is tested with the real argocd
// CLI and server in e2e/steps_test.go and the e2e scenarios;
// sync-and-wait is platc's own step, tested in package step.

// check-confirmation calls no argocd at all: no stand-in on its PATH.
func TestCheckConfirmation(t *testing.T) {
	for confirm, want := range map[string]int{"acme": 0, "acme2": 1, "": 1} {
		cmd := exec.Command("bash", "-c", script("check-confirmation"))
		cmd.Env = []string{"PATH=/usr/bin:/bin", "PLATFORM=acme", "CONFIRM=" + confirm, "PLATC_STEP_DIR=" + t.TempDir()}
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Errorf("CONFIRM=%q: exit %d, want %d", confirm, code, want)
		}
	}
}

// runScript runs script name with env (and no argocd on its PATH), in
// its own step directory, and returns its exit code, output and that
// directory.
func runScript(t *testing.T, name string, env ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", script(name))
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "PLATC_STEP_DIR=" + dir}, env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out), dir
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out), dir
}

func readOutput(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The deciding half of a chunked suspend-parents: given what each
// chunk's find-parents found, it keeps the candidates no chunk manages
// (platform Applications are no parents to suspend). With PROJECTS empty
// it lists nothing; the parent left is then looked up with argocd, which
// is not on the PATH here: the step warns and goes on, as for a parent it
// may not read. The finding half lists projects through the real argocd
// CLI: e2e's TestStepScripts.
func TestSuspendParentsChunked(t *testing.T) {
	code, out, dir := runScript(t, "suspend-parents", "APPLICATIONS=[]", "PROJECTS=[]",
		`FOUND=[["root","app-b"],["app-a"],[]]`, `MANAGING=[[],["app-b"],["app-a"]]`)
	if code != 0 || !strings.Contains(out, "root manages platform Applications but this account cannot read it") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if got := strings.TrimSpace(readOutput(t, dir, "parents")); got != `["root"]` {
		t.Errorf("parents %s, want only root", got)
	}
	code, out, dir = runScript(t, "suspend-parents", "APPLICATIONS=[]", "PROJECTS=[]",
		`FOUND=[["app-b"],[]]`, `MANAGING=[[],["app-b"]]`)
	if code != 0 || !strings.Contains(out, "no Application manages") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if got := readOutput(t, dir, "parents"); got != `[]` {
		t.Errorf("parents %s", got)
	}
}

// The deciding half of a chunked orphan-report: an Application is a
// platform one when any chunk's rows say so, and the exit codes are the
// unchunked step's.
func TestOrphanReportChunked(t *testing.T) {
	rows := func(r string) string { return "ROWS=" + r }
	base := []string{"APPLICATIONS=[]", "PROJECTS=[]", `IGNORE=["root"]`, `KEEP=["keep"]`}
	for _, c := range []struct {
		rows string
		code int
		want string
	}{
		{`[[],[]]`, 0, `[]`},
		{`[[{"project":"p","application":"root","platform":false}],[{"project":"p","application":"keep","platform":false}]]`, 0, `[]`},
		{`[[{"project":"p","application":"x","platform":false}],[{"project":"p","application":"x","platform":false}]]`, 2,
			`[{"project":"p","application":"x","platform":false}]`},
		{`[[{"project":"p","application":"a","platform":false},{"project":"p","application":"x","platform":false}],[{"project":"p","application":"a","platform":true},{"project":"p","application":"x","platform":false}]]`, 1,
			`[{"project":"p","application":"a","platform":true},{"project":"p","application":"x","platform":false}]`},
	} {
		code, out, dir := runScript(t, "orphan-report", append(base, rows(c.rows))...)
		if code != c.code {
			t.Errorf("ROWS=%s: exit %d, want %d\n%s", c.rows, code, c.code, out)
		}
		if got := strings.TrimSpace(readOutput(t, dir, "orphans")); got != c.want {
			t.Errorf("ROWS=%s: orphans %s, want %s", c.rows, got, c.want)
		}
	}
}
