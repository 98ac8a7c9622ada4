package ansible_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/ir"
)

// The argo-workflows role's check that the controller runs the release
// platc validates with, run with the real ansible-playbook on the
// Deployments k8s_info returns: the chart's own appVersion (v3.6.0 for
// argo-workflows 0.45.0) fails, as does no controller at all.
func TestWorkflowsControllerImage(t *testing.T) {
	requireTools(t, "ansible-playbook")
	role := exampleFiles(t)["ansible/roles/argo-workflows/tasks/main.yml"]
	task := taskOf(t, role, "Validate | Require the controller to run the Argo Workflows release platc validates with")
	deployment := func(image string) map[string]any {
		return map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "controller", "image": image}}}}}}
	}
	for _, c := range []struct {
		name        string
		deployments []any
		ok          bool
	}{
		{"the release platc validates with", []any{deployment("quay.io/argoproj/workflow-controller:" + ir.ArgoWorkflowsVersion)}, true},
		{"the chart's appVersion", []any{deployment("quay.io/argoproj/workflow-controller:v3.6.0")}, false},
		{"a longer tag", []any{deployment("quay.io/argoproj/workflow-controller:" + ir.ArgoWorkflowsVersion + "-rc1")}, false},
		{"no controller", []any{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			play := []map[string]any{{
				"hosts": "localhost", "connection": "local", "gather_facts": false,
				"vars": map[string]any{
					"argo_workflows_expected_version": ir.ArgoWorkflowsVersion,
					"argo_workflows_controller":       map[string]any{"resources": c.deployments},
				},
				"tasks": []any{task},
			}}
			b, err := yaml.Marshal(play)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "play.yml"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := run(t, dir, nil, "ansible-playbook", "-i", "localhost,", "play.yml")
			if (err == nil) != c.ok {
				t.Fatalf("passed %v, want %v:\n%s", err == nil, c.ok, out)
			}
			if !c.ok && !strings.Contains(out, "platc validates its workflows with Argo Workflows "+ir.ArgoWorkflowsVersion) {
				t.Errorf("the failure does not say why:\n%s", out)
			}
		})
	}
}

// taskOf is the role's task named name, inside its blocks.
func taskOf(t *testing.T, role []byte, name string) map[string]any {
	t.Helper()
	var tasks []any
	if err := yaml.Unmarshal(role, &tasks); err != nil {
		t.Fatal(err)
	}
	var find func([]any) map[string]any
	find = func(ts []any) map[string]any {
		for _, x := range ts {
			task, ok := x.(map[string]any)
			if !ok {
				continue
			}
			if task["name"] == name {
				return task
			}
			for _, k := range []string{"block", "rescue", "always"} {
				if sub, ok := task[k].([]any); ok {
					if found := find(sub); found != nil {
						return found
					}
				}
			}
		}
		return nil
	}
	task := find(tasks)
	if task == nil {
		t.Fatalf("the role has no task %q", name)
	}
	return task
}
