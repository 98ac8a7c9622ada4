package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/internal/exitcode"
)

// executorEnv clears every variable the executor reads, so the test
// machine's environment cannot leak in, then sets env.
func executorEnv(t *testing.T, env map[string]string) {
	for _, k := range []string{"KUBECONFIG_DATA", "KUBECONFIG_PATH", "KUBECONFIG", "ENVIRONMENT", "TARGET_SCOPE", "DRY_RUN", "PRUNE", "LOG_LEVEL", "LOG_FORMAT",
		"TRACE_ID", "SPAN_ID", "PLATFORM_PATH", "ENVIRONMENT_CONFIG", "DAG_CONFIG", "SECRETS_DIR", "TEARDOWN_CONFIRM", "PV_POLICY", "ACTION_TIMEOUT",
		"SNAPSHOT_FILE", "SNAPSHOT_BASELINE"} {
		t.Setenv(k, "")
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
}

const testPlatform = `
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
  }
}
environment "production" {
  domain = "example.com"
}
stack "storage" {
  app "ceph-operator" {
    namespace = "rook-ceph"
  }
}
app "vault" {
  namespace  = "vault"
  depends_on = [stack.storage]
}
`

// kubeconfig is syntactically valid; these tests never reach its server.
const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: sekrit-token-value}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

// TestExecutorConfigErrors: every configuration mistake is exit 3 with a
// message naming the variable, all mistakes of one run are reported
// together, and nothing is attempted against a cluster.
func TestExecutorConfigErrors(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "platform.hcl")
	kcPath := filepath.Join(dir, "kubeconfig")
	must(t, os.WriteFile(plat, []byte(testPlatform), 0o644))
	must(t, os.WriteFile(kcPath, []byte(kubeconfig), 0o600))
	kcData := base64.StdEncoding.EncodeToString([]byte(kubeconfig))
	emptyPath := filepath.Join(dir, "empty")
	must(t, os.WriteFile(emptyPath, nil, 0o755))
	ok := map[string]string{"KUBECONFIG_DATA": kcData, "ENVIRONMENT": "production", "PLATFORM_PATH": plat}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range ok {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want []string
	}{
		{"no kubeconfig", []string{"validate"}, with("KUBECONFIG_DATA", ""),
			[]string{"no kubeconfig: set KUBECONFIG_DATA (base64-encoded kubeconfig) or KUBECONFIG_PATH"}},
		{"KUBECONFIG naming nothing", []string{"validate"}, with("KUBECONFIG_DATA", "", "KUBECONFIG", kcPath+".missing"),
			[]string{"names no kubeconfig file that exists; set KUBECONFIG_PATH or KUBECONFIG_DATA"}},
		{"both kubeconfigs", []string{"validate"}, with("KUBECONFIG_PATH", kcPath),
			[]string{"KUBECONFIG_DATA and KUBECONFIG_PATH are both set; set exactly one"}},
		{"bad base64", []string{"validate"}, with("KUBECONFIG_DATA", "not*base64!"),
			[]string{"KUBECONFIG_DATA is not valid base64 (illegal data at byte 3)"}},
		{"base64 of something else", []string{"validate"}, with("KUBECONFIG_DATA", base64.StdEncoding.EncodeToString([]byte("- just\n- a list\n"))),
			[]string{"KUBECONFIG_DATA decodes, but not to a kubeconfig"}},
		{"missing kubeconfig file", []string{"validate"}, with("KUBECONFIG_DATA", "", "KUBECONFIG_PATH", filepath.Join(dir, "nope")),
			[]string{"KUBECONFIG_PATH " + filepath.Join(dir, "nope") + ": no such file or directory"}},
		{"no environment", []string{"validate"}, with("ENVIRONMENT", ""),
			[]string{"ENVIRONMENT is not set"}},
		{"unknown environment", []string{"validate"}, with("ENVIRONMENT", "prod"),
			[]string{`ENVIRONMENT "prod" names no environment block`, `it declares: production. Did you mean "production"?`}},
		{"bad scope", []string{"validate"}, with("TARGET_SCOPE", "stak:storage"),
			[]string{`TARGET_SCOPE "stak:storage" is not a scope; use platform, stack:<name> or app:<name>. Did you mean "stack:storage"?`}},
		{"unknown app in scope", []string{"validate"}, with("TARGET_SCOPE", "app:vualt"),
			[]string{`TARGET_SCOPE names app "vualt", but the platform has no such app. Did you mean "app:vault"?`}},
		{"unknown stack in scope", []string{"deploy"}, with("TARGET_SCOPE", "stack:compute"),
			[]string{`TARGET_SCOPE names stack "compute", but the platform has no such stack. Declared: storage.`}},
		{"bad dry run", []string{"deploy"}, with("DRY_RUN", "maybe"), []string{`DRY_RUN "maybe" is not a boolean`}},
		{"bad prune", []string{"deploy"}, with("PRUNE", "please"), []string{`PRUNE "please" is not a boolean`}},
		{"bad log level", []string{"validate"}, with("LOG_LEVEL", "verbose"), []string{`LOG_LEVEL: unknown log level "verbose"`}},
		{"bad timeout", []string{"deploy"}, with("ACTION_TIMEOUT", "soon"), []string{`ACTION_TIMEOUT "soon" is not a positive duration`}},
		{"no platform", []string{"validate"}, with("PLATFORM_PATH", filepath.Join(dir, "absent")), []string{"mount the platform checkout at /platform or set PLATFORM_PATH"}},
		{"teardown unconfirmed", []string{"teardown"}, ok, []string{`confirm by setting TEARDOWN_CONFIRM to the platform name "acme"`}},
		{"teardown wrong name", []string{"teardown"}, with("TEARDOWN_CONFIRM", "acne"), []string{`TEARDOWN_CONFIRM "acne" does not match the platform name "acme"`}},
		{"bad volume policy", []string{"teardown", "--confirm", "acme"}, with("PV_POLICY", "shred"), []string{`PV_POLICY "shred" is not a volume policy`}},
		{"flag overrides env", []string{"validate", "--scope", "app:nope"}, with("TARGET_SCOPE", "platform"), []string{`no such app`}},
		{"empty baseline", []string{"validate"}, with("SNAPSHOT_BASELINE", emptyPath),
			[]string{"SNAPSHOT_BASELINE " + emptyPath + ": empty: not a platc snapshot; name a snapshot file an earlier run wrote with SNAPSHOT_FILE"}},
		{"baseline not a snapshot", []string{"deploy"}, with("SNAPSHOT_BASELINE", kcPath),
			[]string{"SNAPSHOT_BASELINE " + kcPath + ": line 1, column 1: invalid character"}},
		{"snapshot file not json", []string{"validate"}, with("SNAPSHOT_FILE", filepath.Join(dir, "snap.yaml")),
			[]string{`SNAPSHOT_FILE "` + filepath.Join(dir, "snap.yaml") + `" must end in .json`}},
		{"stray argument", []string{"deploy", "examples/"}, ok, []string{"deploy takes no arguments"}},
		{"several at once", []string{"deploy"}, with("KUBECONFIG_PATH", kcPath, "ENVIRONMENT", "", "DRY_RUN", "maybe"),
			[]string{"both set", "ENVIRONMENT is not set", "DRY_RUN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			executorEnv(t, tc.env)
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"platc"}, tc.args...), &stdout, &stderr)
			if code != exitcode.Invalid {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitcode.Invalid, stdout.String(), stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), "sekrit-token-value") || strings.Contains(stdout.String()+stderr.String(), kcData) {
				t.Errorf("a credential was printed")
			}
		})
	}
}

// TestExecutorMissingTool: a required tool missing is exit 3, found by
// Phase 0 before any cluster is contacted (the kubeconfig points nowhere).
func TestExecutorMissingTool(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "platform.hcl")
	must(t, os.WriteFile(plat, []byte(testPlatform), 0o644))
	executorEnv(t, map[string]string{"KUBECONFIG_DATA": base64.StdEncoding.EncodeToString([]byte(kubeconfig)), "ENVIRONMENT": "production", "PLATFORM_PATH": plat})
	t.Setenv("PATH", t.TempDir()) // no tool at all
	var stdout, stderr bytes.Buffer
	code := run([]string{"platc", "deploy"}, &stdout, &stderr)
	if code != exitcode.Invalid {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, w := range []string{"ansible-playbook is not installed (not found on PATH); RFC 3.2.1 requires ansible-playbook 2.15.0 or later",
		"Ansible collection", "required tools are missing or too old"} {
		if !strings.Contains(stdout.String()+stderr.String(), w) {
			t.Errorf("output lacks %q:\n%s\n%s", w, stdout.String(), stderr.String())
		}
	}
}

var textLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (DEBUG|INFO|WARN|ERROR) \[(deploy|validate|teardown)/[a-z0-9-]+/[^\]/ ]+\] \S.*$`)

// TestExecutorLogFormats checks both RFC 7.5 formats end to end: every
// stderr line is a text line of the RFC's shape, or one JSON object with
// the RFC's keys and the trace context; the JSON report is one line.
func TestExecutorLogFormats(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "platform.hcl")
	must(t, os.WriteFile(plat, []byte(testPlatform), 0o644))
	base := map[string]string{"KUBECONFIG_DATA": "%%%", "ENVIRONMENT": "staging", "PLATFORM_PATH": plat}

	executorEnv(t, base)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "validate"}, &stdout, &stderr); code != exitcode.Invalid {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 2 {
		t.Errorf("want 2 problems, got:\n%s", stderr.String())
	}
	for _, l := range lines {
		if !textLine.MatchString(l) {
			t.Errorf("not an RFC 7.5 text line: %q", l)
		}
	}

	base["LOG_FORMAT"], base["TRACE_ID"], base["SPAN_ID"] = "json", "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	executorEnv(t, base)
	stdout.Reset()
	stderr.Reset()
	run([]string{"platc", "validate"}, &stdout, &stderr)
	for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		for _, k := range []string{"timestamp", "level", "action", "phase", "component", "message"} {
			if s, _ := obj[k].(string); s == "" {
				t.Errorf("line lacks %q: %s", k, l)
			}
		}
		if obj["trace_id"] != base["TRACE_ID"] || obj["span_id"] != base["SPAN_ID"] || obj["action"] != "validate" || obj["level"] != "error" {
			t.Errorf("unexpected fields: %s", l)
		}
	}
	if n := strings.Count(strings.TrimSpace(stdout.String()), "\n"); n != 0 {
		t.Errorf("JSON report spans %d lines", n+1)
	}
	var rep map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || rep["status"] != "invalid" || rep["exit_code"] != float64(3) {
		t.Errorf("report: %v %v", rep, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
