package executor

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/lang"
)

func primitivesRun(t *testing.T, cfg *config.Config, toolPath string) (*run, *bytes.Buffer) {
	t.Helper()
	mod, diags := lang.Parse("../examples/platform.hcl")
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: "production"})
	if prog == nil {
		t.Fatal(append(diags, cdiags...))
	}
	cfg.Action, cfg.Program = config.Teardown, prog
	var logs bytes.Buffer
	r := &run{cfg: cfg, log: logging.New(&logs, logging.Options{Action: "teardown"}), env: Env{ToolPath: toolPath},
		rep: &Report{Metrics: map[string]int{}, Recommend: []string{}}}
	return r, &logs
}

// The primitives go only when asked, never in a dry run, and only after a
// clean teardown: with Applications left or a failed workflow, a second
// teardown needs Argo CD and Argo Workflows. None of these cases runs
// anything (an empty PATH would fail any that did).
func TestAfterTeardownOnlyWhenClean(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  config.Config
		code int
		log  string
	}{
		{"not asked", config.Config{}, exitcode.OK, ""},
		{"dry run", config.Config{TeardownPrimitives: true, DryRun: true}, exitcode.OK, ""},
		{"orphans remain", config.Config{TeardownPrimitives: true}, exitcode.Partial, "a second teardown needs them"},
		{"workflow failed", config.Config{TeardownPrimitives: true}, exitcode.Failure, "a second teardown needs them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, logs := primitivesRun(t, &tc.cfg, t.TempDir())
			if got := r.afterTeardown(context.Background(), tc.code); got != tc.code {
				t.Errorf("exit %d, want %d", got, tc.code)
			}
			if tc.log != "" && !strings.Contains(logs.String(), tc.log) || tc.log == "" && logs.Len() > 0 {
				t.Errorf("log:\n%s", logs.String())
			}
			if len(r.rep.Removed) > 0 {
				t.Errorf("reported removed: %v", r.rep.Removed)
			}
		})
	}
}

// The generated teardown playbook, run by the real ansible-playbook the
// way afterTeardown runs it, against an API server that is not there: the
// first release's Pre-check fails, its Rollback and Result run, and the
// play stops there, so nothing after Argo Events is touched; the run
// fails with the reason and what to do, and reports nothing removed.
func TestTeardownPlaybookStopsAtFirstFailure(t *testing.T) {
	bin := ansiblePlaybook(t)
	r, logs := primitivesRun(t, &config.Config{TeardownPrimitives: true,
		KubeconfigBytes: []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n")},
		filepath.Dir(bin)+":/usr/bin:/bin")
	if got := r.afterTeardown(context.Background(), exitcode.OK); got != exitcode.Failure {
		t.Fatalf("exit %d, want %d; log:\n%s", got, exitcode.Failure, logs.String())
	}
	out := logs.String()
	for _, want := range []string{
		"teardown.yml",
		"Pre-check | Reach the Kubernetes API",
		"Rollback | Record why the removal failed",
		"Argo Events ended failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Argo Workflows (") || strings.Contains(out, "Apply | Uninstall the release") && strings.Contains(out, "changed:") {
		t.Errorf("the play went on after the first failure:\n%s", out)
	}
	if !strings.Contains(r.rep.Summary, "removing the orchestration primitives failed") || len(r.rep.Recommend) == 0 || len(r.rep.Removed) > 0 {
		t.Errorf("report: summary %q, recommend %v, removed %v", r.rep.Summary, r.rep.Recommend, r.rep.Removed)
	}
}
