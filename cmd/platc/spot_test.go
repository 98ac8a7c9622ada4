package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/synth"
)

// TestExecutorOnTheSpotOverLimits: at 5,000 and 10,000 apps, a run whose
// workflow is compiled on the spot (environment.yaml's timeouts, a
// dag.yaml, a stack scope) and would be over the node budget or the
// object size limit is exit 3 before anything reaches a cluster (the
// kubeconfig's server does not exist), with a diagnostic at the file and
// line that asked for it, the limit and the count, and the fix.
// (executor/config's TestSpotWorkflow: one app of such a platform is
// within the limits.)
func TestExecutorOnTheSpotOverLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("big platforms")
	}
	for _, n := range []int{5000, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			plat := filepath.Join(dir, "platform.hcl")
			must(t, os.WriteFile(plat, synth.Generate(synth.Options{Apps: n, CrossStack: true}), 0o644))
			envFile := filepath.Join(dir, "environment.yaml")
			must(t, os.WriteFile(envFile, []byte("name: test\ndomain: test.example.com\ngitRepository: https://git.example.com/synthetic.git\ngitRevision: main\ntimeouts:\n  sync: 7m\n"), 0o644))
			dagFile := filepath.Join(dir, "dag.yaml")
			must(t, os.WriteFile(dagFile, []byte("subset:\n  stacks: [stack-001, stack-002]\n"), 0o644))
			base := map[string]string{"KUBECONFIG_DATA": base64.StdEncoding.EncodeToString([]byte(kubeconfig)), "ENVIRONMENT": "test", "PLATFORM_PATH": plat}
			with := func(kv ...string) map[string]string {
				m := map[string]string{}
				for k, v := range base {
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
				// notWant: over the size limit too, no budget admits it.
				notWant []string
			}{
				{"environment.yaml timeouts", []string{"deploy"}, with("ENVIRONMENT_CONFIG", envFile), []string{
					envFile + ":6:9", "over the node budget and the object size limit", "status nodes", "node budget of 1000", "more than the 1048576 platc allows",
					"Write these timeouts and retries into the platform source"}, []string{"A node budget of at least"}},
				{"dag.yaml subset", []string{"deploy"}, with("DAG_CONFIG", dagFile), []string{
					dagFile + ":2:12", "over the node budget", "node budget of 1000", "Narrow the subset", "A node budget of at least"}, nil},
				{"stack teardown", []string{"teardown", "--confirm", "synthetic"}, with("TARGET_SCOPE", "stack:stack-000"), []string{
					plat + ":", "The teardown workflow for stack:stack-000 is over the node budget", "Narrow TARGET_SCOPE", "A node budget of at least"}, nil},
			} {
				t.Run(tc.name, func(t *testing.T) {
					executorEnv(t, tc.env)
					var stdout, stderr bytes.Buffer
					code := run(append([]string{"platc"}, tc.args...), &stdout, &stderr)
					if code != exitcode.Invalid {
						t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitcode.Invalid, stdout.String(), stderr.String())
					}
					out := stderr.String()
					for _, w := range tc.want {
						if !strings.Contains(out, w) {
							t.Errorf("stderr lacks %q:\n%s", w, out)
						}
					}
					for _, w := range tc.notWant {
						if strings.Contains(out, w) {
							t.Errorf("stderr has %q:\n%s", w, out)
						}
					}
					if !regexp.MustCompile(`can hold \d+ status nodes`).MatchString(out) {
						t.Errorf("no node count:\n%s", out)
					}
					if strings.Contains(out, "127.0.0.1:1") || strings.Contains(stdout.String()+out, "submitted workflow") {
						t.Errorf("the run reached for the cluster:\nstdout:\n%s\nstderr:\n%s", stdout.String(), out)
					}
				})
			}
		})
	}
}
