package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/platc/platc/executor"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
)

// TestEnvironmentTimeoutsCompiled (RFC 7.4): environment.yaml's timeouts
// and retries reach a whole-platform deploy. The committed
// WorkflowTemplate embeds the platform's own values, so the run's
// Workflow is compiled on the spot with the file's, labelled with the
// file's digest, accepted by Argo Workflows' own validation, and the
// report says so. A teardown keeps the committed template and says the
// file's retries did not reach it.
func TestEnvironmentTimeoutsCompiled(t *testing.T) {
	f := newFixture(t, "envto")
	f.primitives(t)
	envFile := filepath.Join(f.dir, "environment.yaml")
	body := "name: staging\ndomain: staging.example.com\ngitRepository: https://git.example.com/platform.git\ngitRevision: v1\n" +
		"timeouts: {sync: 7m, health: 11m}\nretries: {maxAttempts: 4, backoff: 45s}\n"
	if err := os.WriteFile(envFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.EnvFile = envFile; in.Timeout = "4s" })
	expect(t, r, exitcode.Timeout, "timeout") // no controller runs here
	contains(t, "report", r.out, `"environment_config":{"path":"`+envFile, `"settings":["timeouts.sync=7m","timeouts.health=11m","retries.maxAttempts=4","retries.backoff=45s"]`, `"compiled":true`, `"scope":"env:`)
	contains(t, "logs", r.logs, "applied: this run's workflow is compiled on the spot with them")
	if strings.Contains(r.logs, "differs from the one this platform source generates") {
		t.Errorf("the run still compares against the committed template:\n%s", r.logs)
	}

	_, dc := f.s.Clients(t)
	l, err := dc.Resource(testenv.WorkflowGVR).Namespace(f.wf).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("workflows: %v, %d", err, len(l.Items))
	}
	u := l.Items[0]
	if got := u.GetLabels()[executor.LabelScope]; !strings.HasPrefix(got, "env.") || len(got) != len("env.")+12 {
		t.Errorf("scope label %q, want env.<sha256 prefix>", got)
	}
	var wf wfv1.Workflow
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Spec.WorkflowTemplateRef != nil {
		t.Fatal("the run references the committed template, which does not carry environment.yaml's values")
	}
	// What the API server stored, judged by Argo Workflows' own
	// validation (the compiled workflow carries its own templates).
	if err := validate.ValidateWorkflow(noTemplates{}, noClusterTemplates{}, &wf, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo Workflows rejects the compiled workflow: %v", err)
	}
	// Every app's step: 7m sync (420 s), 11m health (660 s), four
	// attempts (three retries) 45 s apart; the per-attempt deadline
	// follows them (2*420 + 660 + 360 s headroom).
	b, _ := json.Marshal(wf.Spec)
	spec := string(b)
	for _, app := range f.apps {
		task := fmt.Sprintf(`"name":%q,"template":"sync-and-wait"`, app)
		if !strings.Contains(spec, task) {
			t.Errorf("the workflow does not deploy %s:\n%s", app, spec)
		}
	}
	// The emitter writes a value shared by every app as the input's
	// default, others per task: every occurrence must be the file's.
	for name, want := range map[string]string{"sync-timeout": "420", "health-timeout": "660", "retry-limit": "3", "retry-backoff": "45s", "deadline": "1860"} {
		re := regexp.MustCompile(`"name":"` + name + `","(?:value|default)":"([^"]*)"`)
		ms := re.FindAllStringSubmatch(spec, -1)
		if len(ms) == 0 {
			t.Errorf("the workflow sets no %s:\n%s", name, spec)
		}
		for _, m := range ms {
			if m[1] != want {
				t.Errorf("%s is %s somewhere, want %s everywhere:\n%s", name, m[1], want, spec)
			}
		}
	}

	// A plain deploy does not follow the env-compiled run (different
	// scope); a dry run shows it would submit the template.
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.Timeout = "4s"; in.DryRun = "true" })
	contains(t, "report", r.out, `"scope":"platform"`)
	if strings.Contains(r.out, "environment_config") {
		t.Errorf("a run without the file reports one:\n%s", r.out)
	}

	// Teardown keeps the committed template and says the file's
	// retries did not reach it.
	r = f.run(t, config.Teardown, testenv.AdminToken, func(in *config.Input) {
		in.EnvFile = envFile
		in.TeardownConfirm = f.name
		in.DryRun = "true"
	})
	contains(t, "report", r.out, `"scope":"platform"`, `"compiled":false`, "not applied: a whole-platform teardown runs the committed WorkflowTemplate")
}

type noTemplates struct{}

func (noTemplates) Get(name string) (*wfv1.WorkflowTemplate, error) {
	return nil, fmt.Errorf("WorkflowTemplate %q: a compiled workflow must not need one", name)
}

type noClusterTemplates struct{}

func (noClusterTemplates) Get(name string) (*wfv1.ClusterWorkflowTemplate, error) {
	return nil, fmt.Errorf("ClusterWorkflowTemplate %q: a compiled workflow must not need one", name)
}
