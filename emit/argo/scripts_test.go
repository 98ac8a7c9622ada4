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

// step runs one step script with a stand-in argocd (testdata/fake/argocd:
// the Argo CD API server cannot run here, so these tests check the
// scripts' decisions, not Argo CD). files seeds the stand-in's state.
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

func (s *step) output(name string) string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.out, name))
	if err != nil {
		s.t.Fatalf("output %s: %v", name, err)
	}
	return string(data)
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

var syncEnv = map[string]string{"APP": "web", "PROJECT": "platform", "EXPECT_REVISION": "1.2.3", "SYNC_TIMEOUT": "300", "HEALTH_TIMEOUT": "600"}

func TestSyncAndWait(t *testing.T) {
	get := "app|get|web|--refresh|-o|json"
	sync := "app|sync|web|--timeout|300"
	wait := "app|wait|web|--sync|--health|--timeout|600"
	automated := map[string]any{"spec": map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"selfHeal": true}}}}
	for _, c := range []struct {
		name  string
		files map[string]string
		code  int
		calls []string
	}{
		{"converged: nothing to do", map[string]string{"app-web.json": app("Synced", "Healthy", "1.2.3", "Succeeded", nil)}, 0, []string{get}},
		{"out of sync", map[string]string{"app-web.json": app("OutOfSync", "Healthy", "1.2.3", "Succeeded", nil)}, 0, []string{get, sync, wait}},
		{"degraded", map[string]string{"app-web.json": app("Synced", "Degraded", "1.2.3", "Succeeded", nil)}, 0, []string{get, sync, wait}},
		{"other revision", map[string]string{"app-web.json": app("Synced", "Healthy", "1.2.2", "Succeeded", nil)}, 0, []string{get, sync, wait}},
		{"last operation failed", map[string]string{"app-web.json": app("Synced", "Healthy", "1.2.3", "Failed", nil)}, 0, []string{get, sync, wait}},
		{"operation running, then converged", map[string]string{
			"app-web.json.0": app("OutOfSync", "Progressing", "1.2.3", "Running", nil),
			"app-web.json":   app("Synced", "Healthy", "1.2.3", "Succeeded", nil),
		}, 0, []string{get, "app|wait|web|--operation|--timeout|300", get}},
		{"automated: wait only", map[string]string{"app-web.json": app("OutOfSync", "Healthy", "1.2.3", "Succeeded", automated)}, 0, []string{get, wait}},
		{"get fails", map[string]string{"app-web.json": "{}", "fail-get": ""}, 20, []string{get}},
		{"sync fails", map[string]string{"app-web.json": app("OutOfSync", "Healthy", "1.2.3", "Succeeded", nil), "fail-sync": ""}, 20, []string{get, sync}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := runStep(t, "sync-and-wait", syncEnv, c.files)
			s.wantCode(c.code)
			s.wantCalls(c.calls...)
		})
	}
	t.Run("no expected revision", func(t *testing.T) {
		env := map[string]string{"APP": "web", "SYNC_TIMEOUT": "300", "HEALTH_TIMEOUT": "600", "EXPECT_REVISION": ""}
		s := runStep(t, "sync-and-wait", env, map[string]string{"app-web.json": app("Synced", "Healthy", "abc123", "Succeeded", nil)})
		s.wantCode(0)
		s.wantCalls(get)
	})
}

// Whatever an Application's name holds, it is data: quoting, globs and
// command substitution in it never run.
func TestScriptsTreatValuesAsData(t *testing.T) {
	evil := `web"; touch pwned; echo "$(touch pwned2)` + "`touch pwned3`"
	env := map[string]string{"APP": evil, "PROJECT": "p*", "SYNC_TIMEOUT": "300", "HEALTH_TIMEOUT": "600"}
	s := runStep(t, "sync-and-wait", env, map[string]string{"app-" + evil + ".json": app("OutOfSync", "Healthy", "", "", nil)})
	s.wantCode(0)
	s.wantCalls("app|get|"+evil+"|--refresh|-o|json", "app|sync|"+evil+"|--timeout|300", "app|wait|"+evil+"|--sync|--health|--timeout|600")
	for _, f := range []string{"pwned", "pwned2", "pwned3"} {
		for _, dir := range []string{s.out, s.fake, "."} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s was created in %s: a value ran as code", f, dir)
			}
		}
	}
}

func TestCheckHealthy(t *testing.T) {
	s := runStep(t, "check-healthy", map[string]string{"APP": "web"}, map[string]string{"app-web.json": app("OutOfSync", "Healthy", "", "", nil)})
	s.wantCode(0)
	s.wantCalls("app|get|web|-o|json") // read-only: no --refresh
	if s.output("health") != "Healthy" || s.output("sync") != "OutOfSync" {
		t.Errorf("outputs health=%q sync=%q", s.output("health"), s.output("sync"))
	}
	s = runStep(t, "check-healthy", map[string]string{"APP": "web"}, map[string]string{"app-web.json": app("Synced", "Degraded", "", "", nil)})
	s.wantCode(1)
	if s.output("health") != "Degraded" {
		t.Errorf("health = %q", s.output("health"))
	}
	s = runStep(t, "check-healthy", map[string]string{"APP": "web"}, nil)
	s.wantCode(1)
	if s.output("health") != "Unknown" {
		t.Errorf("health of a missing app = %q", s.output("health"))
	}
}

func TestCheckAbsent(t *testing.T) {
	env := map[string]string{"APP": "web", "PROJECT": "platform"}
	runStep(t, "check-absent", env, map[string]string{"list-platform": "argocd/web-2\n"}).wantCode(0)
	runStep(t, "check-absent", env, map[string]string{"list-platform": "argocd/web\n"}).wantCode(1)
	runStep(t, "check-absent", env, map[string]string{"fail-list": ""}).wantCode(1)
}

func TestEnableAutoSync(t *testing.T) {
	s := runStep(t, "enable-auto-sync", map[string]string{"APP": "web", "SELF_HEAL": "true", "PRUNE": "false"}, nil)
	s.wantCode(0)
	s.wantCalls("app|set|web|--sync-policy|automated|--self-heal=true|--auto-prune=false")
}

func TestCheckConfirmation(t *testing.T) {
	runStep(t, "check-confirmation", map[string]string{"PLATFORM": "acme", "CONFIRM": "acme"}, nil).wantCode(0)
	runStep(t, "check-confirmation", map[string]string{"PLATFORM": "acme", "CONFIRM": "acme2"}, nil).wantCode(1)
	runStep(t, "check-confirmation", map[string]string{"PLATFORM": "acme", "CONFIRM": ""}, nil).wantCode(1)
}

var managed = map[string]any{"status": map[string]any{"resources": []any{
	map[string]any{"kind": "PersistentVolumeClaim", "namespace": "db", "name": "data"},
	map[string]any{"kind": "Namespace", "name": "db"},
	map[string]any{"kind": "StatefulSet", "group": "apps", "namespace": "db", "name": "pg"},
	map[string]any{"kind": "Deployment", "group": "apps", "namespace": "db", "name": "api"},
}}}

func TestDeleteApplication(t *testing.T) {
	list := "app|list|-p|platform|-o|name"
	get := "app|get|web|-o|json"
	del := "app|delete|web|--cascade|--propagation-policy|foreground|--yes|--wait"
	keep := `{"metadata":{"annotations":{"argocd.argoproj.io/sync-options":"Delete=false"}}}`
	sts := func(w string) string {
		return `app|patch-resource|web|--kind|StatefulSet|--group|apps|--resource-name|pg|--patch|{"spec":{"persistentVolumeClaimRetentionPolicy":{"whenDeleted":"` + w + `"}}}|--patch-type|application/merge-patch+json|--namespace|db`
	}
	pvc := "app|patch-resource|web|--kind|PersistentVolumeClaim|--group||--resource-name|data|--patch|" + keep + "|--patch-type|application/merge-patch+json|--namespace|db"
	ns := "app|patch-resource|web|--kind|Namespace|--group||--resource-name|db|--patch|" + keep + "|--patch-type|application/merge-patch+json"
	env := func(policy string) map[string]string {
		return map[string]string{"APP": "web", "PROJECT": "platform", "POLICY": policy, "TIMEOUT": "60"}
	}
	present := map[string]string{"list-platform": "argocd/other\nargocd/web\n"}
	with := func(files map[string]string, name, data string) map[string]string {
		out := map[string]string{name: data}
		for k, v := range files {
			out[k] = v
		}
		return out
	}
	t.Run("already gone", func(t *testing.T) {
		s := runStep(t, "delete-application", env("retain"), map[string]string{"list-platform": "argocd/other\n"})
		s.wantCode(0)
		s.wantCalls(list)
	})
	t.Run("a failed list is not gone", func(t *testing.T) {
		s := runStep(t, "delete-application", env("retain"), map[string]string{"fail-list": ""})
		s.wantCode(1)
		s.wantCalls(list)
	})
	t.Run("retain", func(t *testing.T) {
		s := runStep(t, "delete-application", env("retain"), with(present, "app-web.json", app("Synced", "Healthy", "", "", managed)))
		s.wantCode(0)
		s.wantCalls(list, get, pvc, ns, sts("Retain"), del, list)
	})
	t.Run("delete", func(t *testing.T) {
		s := runStep(t, "delete-application", env("delete"), with(present, "app-web.json", app("Synced", "Healthy", "", "", managed)))
		s.wantCode(0)
		s.wantCalls(list, get, sts("Delete"), del, list)
	})
	t.Run("automated sync goes off first", func(t *testing.T) {
		a := map[string]any{"spec": map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"selfHeal": true}}}}
		s := runStep(t, "delete-application", env("snapshot"), with(present, "app-web.json", app("Synced", "Healthy", "", "", a)))
		s.wantCode(0)
		s.wantCalls(list, get, "app|set|web|--sync-policy|none", del, list)
	})
	t.Run("deletion under way", func(t *testing.T) {
		a := map[string]any{"metadata": map[string]any{"name": "web", "deletionTimestamp": "2026-01-01T00:00:00Z"}}
		s := runStep(t, "delete-application", env("retain"), with(present, "app-web.json", app("Synced", "Healthy", "", "", a)))
		s.wantCode(0)
		s.wantCalls(list, get, "app|wait|web|--delete|--timeout|60")
	})
	t.Run("a refused patch stops before the delete", func(t *testing.T) {
		files := with(with(present, "app-web.json", app("Synced", "Healthy", "", "", managed)), "fail-patch-resource", "")
		s := runStep(t, "delete-application", env("retain"), files)
		s.wantCode(20)
		s.wantCalls(list, get, pvc)
	})
}

func TestInspectVolumes(t *testing.T) {
	claims := `{"kind":"PersistentVolumeClaim","metadata":{"name":"data-pg-0","namespace":"db"}}
---
{"kind":"PersistentVolumeClaim","metadata":{"name":"data-pg-1","namespace":"db"}}
`
	files := map[string]string{"list-platform": "argocd/web\n", "resources-web": claims}
	env := func(volumes, override string) map[string]string {
		return map[string]string{"APP": "web", "PROJECT": "platform", "VOLUMES": volumes, "VOLUMES_OVERRIDE": override}
	}
	s := runStep(t, "inspect-volumes", env("snapshot", "per-app"), files)
	s.wantCode(0)
	if got := s.output("claims"); got != `[{"name":"data-pg-0","namespace":"db"},{"name":"data-pg-1","namespace":"db"}]`+"\n" {
		t.Errorf("claims = %q", got)
	}
	if s.output("policy") != "snapshot" {
		t.Errorf("policy = %q", s.output("policy"))
	}
	s = runStep(t, "inspect-volumes", env("snapshot", "retain"), files)
	s.wantCode(0)
	if s.output("policy") != "retain" || s.output("claims") != "[]" {
		t.Errorf("override: policy %q, claims %q", s.output("policy"), s.output("claims"))
	}
	s.wantCalls("app|list|-p|platform|-o|name") // nothing to snapshot, nothing fetched
	runStep(t, "inspect-volumes", env("retain", "shred"), files).wantCode(1)
	s = runStep(t, "inspect-volumes", env("snapshot", "per-app"), map[string]string{"list-platform": ""})
	s.wantCode(0)
	if s.output("claims") != "[]" {
		t.Errorf("claims of a gone app = %q", s.output("claims"))
	}
}

func TestSuspendParents(t *testing.T) {
	child := func(name, tracking string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name, "annotations": map[string]any{"argocd.argoproj.io/tracking-id": tracking}}}
	}
	list, _ := json.Marshal([]any{
		child("web", "root:argoproj.io/Application:argocd/web"),
		child("db", "root:argoproj.io/Application:argocd/db"),
		child("unrelated", "someone-else:argoproj.io/Application:argocd/unrelated"),
	})
	env := map[string]string{"APPLICATIONS": `["db","web"]`, "PROJECTS": `["platform"]`}
	heal := app("Synced", "Healthy", "", "", map[string]any{"spec": map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"selfHeal": true}}}})
	s := runStep(t, "suspend-parents", env, map[string]string{"listjson-platform": string(list), "app-root.json": heal})
	s.wantCode(0)
	s.wantCalls("app|list|-p|platform|-o|json", "app|get|root|-o|json", "app|set|root|--sync-policy|none")
	if s.output("parents") != `["root"]`+"\n" {
		t.Errorf("parents = %q", s.output("parents"))
	}
	// platc's own root: not readable by the account; reported, not fatal.
	s = runStep(t, "suspend-parents", env, map[string]string{"listjson-platform": string(list)})
	s.wantCode(0)
	if !strings.Contains(s.log, "warning: root manages platform Applications but this account cannot read it") {
		t.Errorf("no warning:\n%s", s.log)
	}
	// A self-healing parent that cannot be switched off stops the teardown.
	s = runStep(t, "suspend-parents", env, map[string]string{"listjson-platform": string(list), "app-root.json": heal, "fail-set": ""})
	s.wantCode(20)
}

func TestOrphanReport(t *testing.T) {
	env := map[string]string{"APPLICATIONS": `["db","web"]`, "PROJECTS": `["platform","team"]`, "IGNORE": `["root"]`, "KEEP": keepJSON}
	s := runStep(t, "orphan-report", env, map[string]string{"list-platform": "argocd/root\nargocd/platc-workflows\n"})
	s.wantCode(0)
	if s.output("orphans") != "[]\n" {
		t.Errorf("orphans = %q", s.output("orphans"))
	}
	s = runStep(t, "orphan-report", env, map[string]string{"list-platform": "argocd/root\n", "list-team": "argocd/left-behind\n"})
	s.wantCode(2)
	if s.output("orphans") != `[{"project":"team","application":"left-behind","platform":false}]`+"\n" {
		t.Errorf("orphans = %q", s.output("orphans"))
	}
	s = runStep(t, "orphan-report", env, map[string]string{"list-platform": "argocd/web\n"})
	s.wantCode(1)
	runStep(t, "orphan-report", env, map[string]string{"fail-list": ""}).wantCode(1)
}
