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
