package ansible_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The gitops-handoff role's waits for the root and the orchestration
// Applications, run with the real ansible-playbook on Application
// objects shaped as Argo CD writes them. The day-2 cases are what a
// reconcile meets (issue 20): the bootstrap has just moved the root to a
// new revision, whose status still says Synced for the old one; and a
// root that holds the Application of a removed app, OutOfSync for good
// since it never prunes, yet has applied everything else.
func TestHandoffWaits(t *testing.T) {
	requireTools(t, "ansible-playbook")
	role := exampleFiles(t)["ansible/roles/gitops-handoff/tasks/main.yml"]
	rootUntil := untilOf(t, role, "Validate | Wait for the root Application and its group roots to apply their revision")
	appUntil := untilOf(t, role, "Validate | Wait for the orchestration Applications to be synced and healthy")

	app := func(target, compared, sync, health, phase string, resources ...map[string]any) map[string]any {
		status := map[string]any{
			"sync":   map[string]any{"status": sync, "comparedTo": map[string]any{"source": map[string]any{"targetRevision": compared}}},
			"health": map[string]any{"status": health},
		}
		if phase != "" {
			status["operationState"] = map[string]any{"phase": phase}
		}
		if resources != nil {
			status["resources"] = resources
		}
		return map[string]any{"spec": map[string]any{"source": map[string]any{"targetRevision": target}}, "status": status}
	}
	res := func(name, status string, prune bool) map[string]any {
		r := map[string]any{"kind": "Application", "name": name, "status": status}
		if prune {
			r["requiresPruning"] = true
		}
		return r
	}
	synced := res("api", "Synced", false)
	cases := []struct {
		name      string
		until     string
		resources []map[string]any
		want      bool
	}{
		{"root applied its revision", rootUntil, []map[string]any{app("v2", "v2", "Synced", "Healthy", "Succeeded", synced)}, true},
		{"root moved, status still of the old revision", rootUntil, []map[string]any{app("v2", "v1", "Synced", "Healthy", "Succeeded", synced)}, false},
		{"root compared the new revision, new Application not created yet", rootUntil, []map[string]any{app("v2", "v2", "OutOfSync", "Healthy", "Succeeded", synced, res("queue", "OutOfSync", false))}, false},
		{"root syncing", rootUntil, []map[string]any{app("v2", "v2", "Synced", "Healthy", "Running", synced)}, false},
		{"root applied, a removed app's Application left to prune", rootUntil, []map[string]any{app("v2", "v2", "OutOfSync", "Healthy", "Succeeded", synced, res("metrics", "OutOfSync", true))}, true},
		{"root never compared", rootUntil, []map[string]any{app("v1", "", "", "", "")}, false},
		{"no root", rootUntil, []map[string]any{}, false},
		{"orchestration synced at its revision", appUntil, []map[string]any{app("v2", "v2", "Synced", "Healthy", "")}, true},
		{"orchestration moved, status still of the old revision", appUntil, []map[string]any{app("v2", "v1", "Synced", "Healthy", "")}, false},
		{"orchestration progressing", appUntil, []map[string]any{app("v2", "v2", "Synced", "Progressing", "")}, false},
	}
	var tasks strings.Builder
	for i, c := range cases {
		state, err := json.Marshal(map[string]any{"resources": c.resources})
		if err != nil {
			t.Fatal(err)
		}
		// The registered variable each until reads, as k8s_info fills it.
		fmt.Fprintf(&tasks, `    - name: case %d
      vars:
        gitops_handoff_root_state: %s
        gitops_handoff_app_state: %s
      ansible.builtin.debug:
        msg: "case-%d={{ (%s) | bool }}"
`, i, state, state, i, strings.Join(strings.Fields(c.until), " "))
	}
	dir := t.TempDir()
	play := "- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n" + tasks.String()
	if err := os.WriteFile(filepath.Join(dir, "play.yml"), []byte(play), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "ansible-playbook", "-i", "localhost,", "play.yml")
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	for i, c := range cases {
		want := fmt.Sprintf(`"msg": "case-%d=%v"`, i, map[bool]string{true: "True", false: "False"}[c.want])
		if !strings.Contains(out, want) {
			t.Errorf("%s: the wait's condition is not %v", c.name, c.want)
		}
	}
	if t.Failed() {
		t.Logf("ansible-playbook output:\n%s", out)
	}
}

// untilOf is the until expression of the role's task named name, inside
// its blocks.
func untilOf(t *testing.T, role []byte, name string) string {
	t.Helper()
	var tasks []map[string]any
	if err := yaml.Unmarshal(role, &tasks); err != nil {
		t.Fatal(err)
	}
	var find func([]map[string]any) string
	find = func(ts []map[string]any) string {
		for _, task := range ts {
			if task["name"] == name {
				s, _ := task["until"].(string)
				return s
			}
			for _, k := range []string{"block", "rescue", "always"} {
				if sub, ok := task[k].([]any); ok {
					var inner []map[string]any
					for _, x := range sub {
						if m, ok := x.(map[string]any); ok {
							inner = append(inner, m)
						}
					}
					if s := find(inner); s != "" {
						return s
					}
				}
			}
		}
		return ""
	}
	s := find(tasks)
	if s == "" {
		t.Fatalf("the gitops-handoff role has no task %q with an until", name)
	}
	return s
}
