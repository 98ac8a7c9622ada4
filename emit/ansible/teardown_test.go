package ansible_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/emit/ansible"
)

// The teardown playbook (RFC 6.5 step 5) keeps the bootstrap's discipline:
// one unit per release of a reset, a block and a stop; Pre-check, Apply,
// Test and Validate in order inside the block, Rollback in rescue, Result
// in always recording the status; Helm only to uninstall; CRDs deleted
// only when primitives_teardown_crds asks; the releases in
// ansible.TeardownOrder, which the executor reports from.
func TestTeardownPlaybook(t *testing.T) {
	files := exampleFiles(t)
	site := parse(t, "teardown.yml", files["ansible/teardown.yml"]).([]any)
	if len(site) != 1 || site[0].(map[string]any)["ansible.builtin.import_playbook"] != "playbooks/primitives-teardown.yml" {
		t.Fatalf("teardown.yml imports %v", site)
	}
	play := parse(t, "playbook", files["ansible/playbooks/primitives-teardown.yml"]).([]any)[0].(map[string]any)
	if play["hosts"] != "bootstrap" || play["roles"].([]any)[0].(map[string]any)["role"] != "primitives-teardown" {
		t.Errorf("the teardown play is %v", play)
	}

	const main = "ansible/roles/primitives-teardown/tasks/main.yml"
	top := parse(t, main, files[main]).([]any)
	if len(top) != 1 {
		t.Fatalf("%s: want one task, the loop over releases; got %d", main, len(top))
	}
	include := top[0].(map[string]any)
	if include["ansible.builtin.include_tasks"] != "release.yml" {
		t.Fatalf("%s does not include release.yml per release", main)
	}
	// The loop's releases, by the variable naming each, in the order
	// ansible.TeardownOrder gives the roles.
	var got []string
	for _, x := range include["loop"].([]any) {
		rel := x.(map[string]any)["release"].(string)
		got = append(got, strings.TrimSuffix(strings.TrimPrefix(rel, "{{ "), "_release_name }}"))
	}
	var want []string
	for _, role := range ansible.TeardownOrder {
		want = append(want, strings.ReplaceAll(role, "-", "_"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the playbook removes %v, want %v (ansible.TeardownOrder)", got, want)
	}

	const unit = "ansible/roles/primitives-teardown/tasks/release.yml"
	tasks := parse(t, unit, files[unit]).([]any)
	if len(tasks) != 3 {
		t.Fatalf("%s: want one unit of three tasks, got %d", unit, len(tasks))
	}
	reset, block, stop := tasks[0].(map[string]any), tasks[1].(map[string]any), tasks[2].(map[string]any)
	if phaseOf(t, unit, reset["name"].(string)) != 0 || phaseOf(t, unit, stop["name"].(string)) != 5 {
		t.Errorf("%s does not open with Pre-check and close with Result", unit)
	}
	if _, ok := stop["ansible.builtin.fail"]; !ok || stop["when"] != "primitives_teardown_status != 'success'" {
		t.Errorf("%s does not stop on a failed removal", unit)
	}
	last, uninstalls, crdDeletes := 0, 0, 0
	for _, x := range block["block"].([]any) {
		task := x.(map[string]any)
		p := checkTask(t, unit, task)
		if p < last || p > 3 {
			t.Errorf("%s: %q out of phase order", unit, task["name"])
		}
		last = max(last, p)
		if h, ok := task["kubernetes.core.helm"].(map[string]any); ok {
			uninstalls++
			if h["release_state"] != "absent" || h["wait"] != true || p != 1 {
				t.Errorf("%s: %q: a Helm task that is not an uninstall with wait in Apply: %v", unit, task["name"], h)
			}
		}
		if k, ok := task["kubernetes.core.k8s"].(map[string]any); ok {
			crdDeletes++
			if k["kind"] != "CustomResourceDefinition" || k["state"] != "absent" || task["when"] != "primitives_teardown_crds | bool" {
				t.Errorf("%s: %q changes the cluster other than deleting CRDs when asked", unit, task["name"])
			}
		}
	}
	if uninstalls != 1 || crdDeletes != 1 || last != 3 {
		t.Errorf("%s: %d uninstalls, %d CRD deletions, last phase %s", unit, uninstalls, crdDeletes, phases[last])
	}
	for _, x := range block["rescue"].([]any) {
		if checkTask(t, unit, x.(map[string]any)) != 4 {
			t.Errorf("%s: %q in rescue is not a Rollback task", unit, x.(map[string]any)["name"])
		}
	}
	records := false
	for _, x := range block["always"].([]any) {
		task := x.(map[string]any)
		if checkTask(t, unit, task) != 5 {
			t.Errorf("%s: %q in always is not a Result task", unit, task["name"])
		}
		if sf, ok := task["ansible.builtin.set_fact"].(map[string]any); ok {
			_, records = sf["primitives_teardown_status"]
		}
	}
	if !records {
		t.Errorf("%s never records primitives_teardown_status", unit)
	}
	defaults := parse(t, "defaults", files["ansible/roles/primitives-teardown/defaults/main.yml"]).(map[string]any)
	if defaults["primitives_teardown_crds"] != false {
		t.Errorf("CRDs are deleted by default: %v", defaults["primitives_teardown_crds"])
	}
}
