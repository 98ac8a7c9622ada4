package argo

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
// CLI and server in e2e/scripts_test.go and the e2e scenarios. What
// remains here runs them with a stand-in argocd (testdata/fake/argocd)
// for the states of an Application that the real system cannot be
// driven into on demand: an operation still running when the step
// starts, or a last operation that failed while the app looks healthy.
//
// runStep runs one step script with the stand-in. files seeds the
// stand-in's state.
type step struct {
	t     *testing.T
	fake  string // the stand-in's state directory
	out   string // PLATC_STEP_DIR: the step's scratch and output files
	calls []string
	code  int
	log   string
}

func runStep(t *testing.T, name string, env map[string]string, files map[string]string) *step {
	t.Helper()
	for _, tool := range []string{"bash", "jq", "timeout", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the step scripts: %v", tool, err)
		}
	}
	s := &step{t: t, fake: t.TempDir(), out: t.TempDir()}
	for n, data := range files {
		if err := os.WriteFile(filepath.Join(s.fake, n), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fakeBin, err := filepath.Abs("testdata/fake")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script(name))
	cmd.Env = []string{"PATH=" + fakeBin + ":" + os.Getenv("PATH"), "FAKE=" + s.fake, "PLATC_STEP_DIR=" + s.out, "HOME=" + s.out}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	s.log = string(out)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		s.code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(s.fake, "calls")); err == nil {
		s.calls = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	}
	return s
}

func (s *step) wantCode(code int) {
	s.t.Helper()
	if s.code != code {
		s.t.Fatalf("exit %d, want %d\noutput:\n%s\ncalls:\n%s", s.code, code, s.log, strings.Join(s.calls, "\n"))
	}
}

// wantCalls checks the argocd calls, in order.
func (s *step) wantCalls(want ...string) {
	s.t.Helper()
	if !slices.Equal(s.calls, want) {
		s.t.Errorf("argocd calls:\n  %s\nwant:\n  %s\noutput:\n%s", strings.Join(s.calls, "\n  "), strings.Join(want, "\n  "), s.log)
	}
}

// app renders an Application as argocd app get -o json would.
func app(sync, health, revision, phase string, extra map[string]any) string {
	a := map[string]any{
		"metadata": map[string]any{"name": "web"},
		"spec":     map[string]any{},
		"status": map[string]any{
			"sync":           map[string]any{"status": sync, "revision": revision},
			"health":         map[string]any{"status": health},
			"operationState": map[string]any{"phase": phase},
		},
	}
	for k, v := range extra {
		a[k] = v
	}
	j, _ := json.Marshal(a)
	return string(j)
}

var syncEnv = map[string]string{"APP": "web", "PROJECT": "platform", "EXPECT_REVISION": "1.2.3", "SYNC_TIMEOUT": "300", "HEALTH_TIMEOUT": "600", "POLL_SECONDS": "0"}

func TestSyncAndWait(t *testing.T) {
	refresh := "app|get|web|--refresh|-o|json"
	get := "app|get|web|-o|json"
	sync := "app|sync|web|--timeout|300"
	for _, c := range []struct {
		name  string
		env   map[string]string
		files map[string]string
		code  int
		calls []string
	}{
		// A failed last operation (a hook that failed, say) with the
		// resources still Synced and Healthy: sync again.
		{"last operation failed", nil, map[string]string{"app-web.json": app("Synced", "Healthy", "1.2.3", "Failed", nil)}, 0, []string{refresh, sync, refresh}},
		// Another operation (an earlier attempt, a person's sync) still
		// running: wait for it before deciding.
		{"operation running, then converged", nil, map[string]string{
			"app-web.json.0": app("OutOfSync", "Progressing", "1.2.3", "Running", nil),
			"app-web.json":   app("Synced", "Healthy", "1.2.3", "Succeeded", nil),
		}, 0, []string{refresh, "app|wait|web|--operation|--timeout|300", refresh}},
		// Progressing is waited for, reading without forcing a refresh.
		{"progressing, then healthy", nil, map[string]string{
			"app-web.json.0": app("OutOfSync", "Missing", "1.2.2", "Succeeded", nil),
			"app-web.json.1": app("Synced", "Progressing", "1.2.3", "Succeeded", nil),
			"app-web.json.2": app("Synced", "Progressing", "1.2.3", "Succeeded", nil),
			"app-web.json":   app("Synced", "Healthy", "1.2.3", "Succeeded", nil),
		}, 0, []string{refresh, sync, refresh, get, get}},
		// Degraded after the sync fails the step at once, with the code
		// the retry expression does not retry (RFC 5.3).
		{"degraded after the sync", nil, map[string]string{
			"app-web.json.0": app("OutOfSync", "Missing", "1.2.2", "Succeeded", nil),
			"app-web.json":   app("Synced", "Degraded", "1.2.3", "Succeeded", nil),
		}, ExitNotRetried, []string{refresh, sync, refresh}},
		// A retry that finds the app Degraded already: the same, at once,
		// not after its health timeout (issue 19, finding 4).
		{"degraded already", nil, map[string]string{"app-web.json": app("Synced", "Degraded", "1.2.3", "Succeeded", nil)}, ExitNotRetried, []string{refresh, sync, refresh}},
		// Unknown is a failure (RFC 5.3).
		{"unknown", nil, map[string]string{
			"app-web.json.0": app("OutOfSync", "Missing", "1.2.2", "Succeeded", nil),
			"app-web.json.1": app("Synced", "Progressing", "1.2.3", "Succeeded", nil),
			"app-web.json":   app("Synced", "Unknown", "1.2.3", "Succeeded", nil),
		}, ExitNotRetried, []string{refresh, sync, refresh, get}},
		// Still Progressing when the health timeout ends: final too.
		{"health timeout", map[string]string{"HEALTH_TIMEOUT": "0"}, map[string]string{
			"app-web.json.0": app("OutOfSync", "Missing", "1.2.2", "Succeeded", nil),
			"app-web.json":   app("Synced", "Progressing", "1.2.3", "Succeeded", nil),
		}, ExitNotRetried, []string{refresh, sync, refresh}},
		// A failed sync operation is what a retry can fix: any other code.
		{"sync fails", nil, map[string]string{
			"app-web.json": app("OutOfSync", "Missing", "1.2.2", "Succeeded", nil),
			"fail-sync":    "",
		}, 20, []string{refresh, sync}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range syncEnv {
				env[k] = v
			}
			for k, v := range c.env {
				env[k] = v
			}
			s := runStep(t, "sync-and-wait", env, c.files)
			s.wantCode(c.code)
			s.wantCalls(c.calls...)
		})
	}
}

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
