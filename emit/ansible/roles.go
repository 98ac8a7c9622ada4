package ansible

import (
	"fmt"
	"strings"
)

// A role is one of RFC 6.2.1's five bootstrap roles.
type role struct {
	dir    string // directory under roles/, as the RFC names it
	prefix string // variable prefix: the directory name with '_' for '-'
	title  string // what it installs, for task names
	desc   string // meta description
	deps   []string
	// defaults are the role's tunables (timeouts, retries).
	defaults om
	// units are the role's six-phase units, in order.
	units []unit
}

// A unit is a sequence of tasks in RFC 6.2.1's six phases. The change and
// its checks run in a block; a failure anywhere in it runs the rollback
// (which acts only if something was changed) and the result always runs,
// recording <role>_status. A final task then fails the play unless the
// status is success, so a rollback never hides the failure.
type unit struct {
	what                            string // for the block's name
	precheck, apply, test, validate []om
	rollback                        []om // after the failure is recorded
	result                          om   // extra facts for the result
}

func task(name, module string, args any, extra ...kv) om {
	return append(om{{"name", name}, {module, args}}, extra...)
}

func (r role) v(name string) string { return r.prefix + "_" + name }

// tasks renders the role's tasks/main.yml.
func (r role) tasks() []om {
	var out []om
	for _, u := range r.units {
		out = append(out, r.unitTasks(u)...)
	}
	return out
}

func (r role) unitTasks(u unit) []om {
	status, errv, rolled := r.v("status"), r.v("error"), r.v("rolled_back")
	reset := task("Pre-check | Reset the result of "+r.title, "ansible.builtin.set_fact", om{
		{status, "running"},
		{errv, ""},
		{rolled, false},
		{r.v("started_at"), "{{ now(utc=true).isoformat() }}"},
	})
	var body []om
	for _, dep := range r.deps {
		fact := strings.ReplaceAll(dep, "-", "_") + "_status"
		body = append(body, task("Pre-check | Require the "+dep+" role to have succeeded", "ansible.builtin.assert", om{
			{"that", []string{fact + " | default('not run') == 'success'"}},
			{"fail_msg", fmt.Sprintf("%s needs %s, whose status is {{ %s | default('not run') }}", r.dir, dep, fact)},
			{"quiet", true},
		}))
	}
	body = append(body, u.precheck...)
	body = append(body, u.apply...)
	body = append(body, u.test...)
	body = append(body, u.validate...)
	rescue := []om{task("Rollback | Record why "+r.title+" failed", "ansible.builtin.set_fact", om{
		{errv, "{{ ansible_failed_task.name | default('unknown task') }}: {{ ansible_failed_result.msg | default('no message') }}"},
	})}
	rescue = append(rescue, u.rollback...)
	facts := om{
		{status, fmt.Sprintf("{{ 'success' if %s | length == 0 else ('rolled_back' if %s else 'failed') }}", errv, rolled)},
		{r.v("finished_at"), "{{ now(utc=true).isoformat() }}"},
	}
	facts = append(facts, u.result...)
	always := []om{
		task("Result | Record the outcome of "+r.title, "ansible.builtin.set_fact", facts),
		task("Result | Report the outcome of "+r.title, "ansible.builtin.debug", om{
			{"msg", fmt.Sprintf("%s: {{ %s }}{{ (' (' ~ %s ~ ')') if %s | length > 0 else '' }}", r.dir, status, errv, errv)},
		}),
	}
	stop := task("Result | Stop unless "+r.title+" succeeded", "ansible.builtin.fail", om{
		{"msg", fmt.Sprintf("%s ended {{ %s }}: {{ %s }}", r.dir, status, errv)},
	}, kv{"when", status + " != 'success'"})
	return []om{
		reset,
		{
			{"name", "Apply | " + u.what},
			{"block", body},
			{"rescue", rescue},
			{"always", always},
		},
		stop,
	}
}

// meta is the role's meta/main.yml. The dependency chain of RFC 6.2.1 is
// declared here, and each dependency runs only if its status fact is not
// already success: run from site.yml every role runs once, in order; run
// on its own a playbook still brings up what its role depends on. The
// role's first pre-check then insists on the status fact itself.
func (r role) meta() om {
	var deps []any
	for _, d := range r.deps {
		fact := strings.ReplaceAll(d, "-", "_") + "_status"
		deps = append(deps, om{{"role", d}, {"when", fact + " | default('') != 'success'"}})
	}
	if deps == nil {
		deps = []any{}
	}
	return om{
		{"galaxy_info", om{
			// ansible-lint's role-name rule wants ^[a-z][a-z0-9_]*$; the
			// directory keeps the name RFC 6.2.1 gives it.
			{"role_name", r.prefix},
			{"author", "platc"},
			{"description", r.desc},
			{"license", "Apache-2.0"},
			{"min_ansible_version", "2.14"},
			{"platforms", []om{{{"name", "GenericLinux"}, {"versions", []string{"all"}}}}},
			{"galaxy_tags", []string{"kubernetes", "gitops", "bootstrap"}},
		}},
		{"dependencies", deps},
	}
}
