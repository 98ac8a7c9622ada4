package ansible_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/internal/emittest"
)

// The six phases of RFC 6.2.1, in order.
var phases = []string{"Pre-check", "Apply", "Test", "Validate", "Rollback", "Result"}

var roles = []string{"argocd", "argo-workflows", "argo-events", "sealed-secrets", "gitops-handoff"}

func exampleFiles(t *testing.T) map[string][]byte {
	t.Helper()
	return emittest.Emit(t, emittest.Example(t, "../.."), argocd.Values{}, ansible.Emitter{})
}

func parse(t *testing.T, path string, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func phaseOf(t *testing.T, where, name string) int {
	t.Helper()
	p, _, ok := strings.Cut(name, " | ")
	i := slices.Index(phases, p)
	if !ok || i < 0 {
		t.Errorf("%s: task %q is not prefixed by a phase", where, name)
	}
	return i
}

// forbidden are modules RFC 6.2.1 rules out: shell and command (helm or
// kubectl from a shell, and anything else that bypasses modules), and
// sleeping instead of waiting for a condition. One task is exempt (see
// tokenTask): Argo CD accounts have no Ansible module.
var forbidden = []string{
	"shell", "command", "raw", "script", "pause", "wait_for",
	"ansible.builtin.shell", "ansible.builtin.command", "ansible.builtin.raw", "ansible.builtin.script",
	"ansible.builtin.pause", "ansible.builtin.wait_for", "ansible.legacy.shell", "ansible.legacy.command",
}

// tokenTask reports whether task is the one shell task allowed: the
// automation token issued by the argocd CLI in core mode on the bootstrap
// host. Argo CD accounts have no Ansible module, the argocd-server pod may
// not run core mode (issue 12), and the RFC's ban is on shell for Helm
// and kubectl apply. It must be exactly the script platc ships, with the
// values in environment variables, never logged.
func tokenTask(task map[string]any) bool {
	sh, ok := task["ansible.builtin.shell"].(map[string]any)
	return ok && task["name"] == "Apply | Issue an API token for the automation account" &&
		sh["cmd"] == tokenScript && sh["executable"] == "/bin/bash" && task["no_log"] == true
}

// tokenScript is the one shell script the roles may run, as reviewed:
// it issues the automation account's token on the bootstrap host,
// reading ARGOCD_NAMESPACE, ARGOCD_ACCOUNT and KUBECONFIG. The role file
// (files/roles/gitops-handoff/tasks/main.yml) must carry exactly this
// text; the e2e environment runs the script it finds there against the
// real Argo CD.
const tokenScript = `set -euo pipefail
kubeconfig=$(mktemp)
trap 'rm -f "$kubeconfig"' EXIT
kubectl config view --raw --minify --flatten >"$kubeconfig"
KUBECONFIG=$kubeconfig kubectl config set-context --current --namespace "$ARGOCD_NAMESPACE" >/dev/null
KUBECONFIG=$kubeconfig argocd account generate-token --core --account "$ARGOCD_ACCOUNT"
`

// checkTask applies the per-task rules and returns the task's phase.
func checkTask(t *testing.T, where string, task map[string]any) int {
	t.Helper()
	name, _ := task["name"].(string)
	for _, f := range forbidden {
		if _, ok := task[f]; ok && !tokenTask(task) {
			t.Errorf("%s: %q uses %s", where, name, f)
		}
	}
	if _, ok := task["ignore_errors"]; ok {
		t.Errorf("%s: %q ignores errors", where, name)
	}
	if fw, ok := task["failed_when"]; ok && (fw == false || fw == "false") {
		t.Errorf("%s: %q can never fail", where, name)
	}
	if h, ok := task["kubernetes.core.helm"].(map[string]any); ok && h["release_state"] != "absent" {
		if h["atomic"] != true || h["wait"] != true {
			t.Errorf("%s: %q: helm without atomic and wait", where, name)
		}
		if v, _ := h["chart_version"].(string); v == "" {
			t.Errorf("%s: %q: helm without a chart version", where, name)
		}
	}
	return phaseOf(t, where, name)
}

// Every role's tasks follow RFC 6.2.1: units of a reset, a block, a
// stop; inside the block Pre-check, Apply, Test and Validate in that
// order, Rollback in rescue, Result in always, which records the role's
// status fact; no forbidden module, no ignored error, Helm only with a
// pinned version, atomic and wait.
func TestRoleStructure(t *testing.T) {
	files := exampleFiles(t)
	for _, role := range roles {
		t.Run(role, func(t *testing.T) {
			path := "ansible/roles/" + role + "/tasks/main.yml"
			tasks, ok := parse(t, path, files[path]).([]any)
			if !ok || len(tasks)%3 != 0 || len(tasks) == 0 {
				t.Fatalf("%s: want units of three tasks, got %d", path, len(tasks))
			}
			status := strings.ReplaceAll(role, "-", "_") + "_status"
			applies := 0
			for u := 0; u < len(tasks); u += 3 {
				reset, block, stop := tasks[u].(map[string]any), tasks[u+1].(map[string]any), tasks[u+2].(map[string]any)
				if phaseOf(t, path, reset["name"].(string)) != 0 || phaseOf(t, path, stop["name"].(string)) != 5 {
					t.Errorf("%s: unit %d does not open with Pre-check and close with Result", path, u/3)
				}
				if _, ok := stop["ansible.builtin.fail"]; !ok || stop["when"] != status+" != 'success'" {
					t.Errorf("%s: unit %d does not stop on a failed %s", path, u/3, status)
				}
				// A unit may be switched off as a whole (gitops-handoff's
				// submission): the reset and the block then carry the same
				// condition, and the stop never fires, the status staying
				// what the last unit left.
				if w, ok := block["when"]; ok && reset["when"] != w {
					t.Errorf("%s: unit %d block runs when %v, its reset when %v", path, u/3, w, reset["when"])
				}
				keys := []string{}
				for k := range block {
					if k != "when" {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				if keys = slices.DeleteFunc(keys, func(k string) bool { return k == "when" }); !slices.Equal(keys, []string{"always", "block", "name", "rescue"}) {
					t.Fatalf("%s: unit %d block has keys %v", path, u/3, keys)
				}
				// A unit that may be skipped skips its reset too: a status
				// reset to running by a skipped unit would stop the play.
				if block["when"] != reset["when"] {
					t.Errorf("%s: unit %d's block runs when %v but its reset when %v", path, u/3, block["when"], reset["when"])
				}
				last := 0
				for _, x := range block["block"].([]any) {
					task := x.(map[string]any)
					p := checkTask(t, path, task)
					if p < last || p > 3 {
						t.Errorf("%s: %q out of phase order", path, task["name"])
					}
					last = max(last, p)
					if _, ok := task["kubernetes.core.helm"]; ok && p == 1 {
						applies++
					}
				}
				if last != 3 {
					t.Errorf("%s: unit %d has no Validate phase", path, u/3)
				}
				for _, x := range block["rescue"].([]any) {
					if checkTask(t, path, x.(map[string]any)) != 4 {
						t.Errorf("%s: %q in rescue is not a Rollback task", path, x.(map[string]any)["name"])
					}
				}
				records := false
				for _, x := range block["always"].([]any) {
					task := x.(map[string]any)
					if checkTask(t, path, task) != 5 {
						t.Errorf("%s: %q in always is not a Result task", path, task["name"])
					}
					if sf, ok := task["ansible.builtin.set_fact"].(map[string]any); ok {
						_, records = sf[status]
					}
				}
				if !records {
					t.Errorf("%s: unit %d never records %s", path, u/3, status)
				}
			}
			if applies != 1 {
				t.Errorf("%s: %d Helm installs in Apply, want 1", path, applies)
			}
		})
	}
}

// The role dependency chain of RFC 6.2.1, declared in meta/main.yml and
// asserted again by each role's first pre-checks.
func TestDependencyChain(t *testing.T) {
	files := exampleFiles(t)
	want := map[string][]string{
		"argocd":         nil,
		"argo-workflows": {"argocd"},
		"argo-events":    {"argo-workflows"},
		"sealed-secrets": nil,
		"gitops-handoff": {"argocd", "sealed-secrets"},
	}
	for _, role := range roles {
		path := "ansible/roles/" + role + "/meta/main.yml"
		meta := parse(t, path, files[path]).(map[string]any)
		var got []string
		for _, d := range meta["dependencies"].([]any) {
			got = append(got, d.(map[string]any)["role"].(string))
		}
		if !slices.Equal(got, want[role]) {
			t.Errorf("%s depends on %v, want %v", role, got, want[role])
		}
		tasks := string(files["ansible/roles/"+role+"/tasks/main.yml"])
		for _, dep := range want[role] {
			fact := strings.ReplaceAll(dep, "-", "_") + "_status | default('not run') == 'success'"
			if !strings.Contains(tasks, fact) {
				t.Errorf("%s does not check %s", role, fact)
			}
		}
	}
	site := parse(t, "site.yml", files["ansible/site.yml"]).([]any)
	var order []string
	for _, p := range site {
		imp := p.(map[string]any)["ansible.builtin.import_playbook"].(string)
		order = append(order, strings.TrimSuffix(strings.TrimPrefix(imp, "playbooks/"), ".yml"))
	}
	if !slices.Equal(order, roles) {
		t.Errorf("site.yml runs %v, want %v", order, roles)
	}
}

// The automation token is handled only by tasks that log nothing, and no
// generated file holds anything but a reference to its Secret.
func TestTokenNeverLogged(t *testing.T) {
	files := exampleFiles(t)
	path := "ansible/roles/gitops-handoff/tasks/main.yml"
	tasks := parse(t, path, files[path]).([]any)
	seen := 0
	var walk func(x any)
	walk = func(x any) {
		task, ok := x.(map[string]any)
		if !ok {
			return
		}
		for _, k := range []string{"block", "rescue", "always"} {
			if l, ok := task[k].([]any); ok {
				for _, c := range l {
					walk(c)
				}
			}
		}
		if _, isBlock := task["block"]; isBlock {
			return
		}
		// What a task prints is its arguments and its result; a condition
		// that reads the token's registration prints nothing.
		args := map[string]any{}
		for k, v := range task {
			if k != "name" && k != "when" {
				args[k] = v
			}
		}
		b, _ := yaml.Marshal(args)
		s := string(b)
		if strings.Contains(s, "gitops_handoff_issued") || strings.Contains(s, "gitops_handoff_token") {
			seen++
			if task["no_log"] != true {
				t.Errorf("%q handles the token without no_log", task["name"])
			}
		}
	}
	for _, x := range tasks {
		walk(x)
	}
	if seen < 4 {
		t.Errorf("only %d tasks touch the token; the test lost track of them", seen)
	}
	for name, data := range files {
		if strings.Contains(string(data), "generate-token") && name != path {
			t.Errorf("%s mentions token generation", name)
		}
	}
}

// requireTools returns the paths of the Ansible tools, skipping the test
// when they are absent unless PLATC_REQUIRE_ANSIBLE is set (CI sets it,
// so CI can never skip these tests silently).
func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("PLATC_REQUIRE_ANSIBLE") != "" {
				t.Fatalf("%s not found and PLATC_REQUIRE_ANSIBLE is set: %v", n, err)
			}
			t.Skipf("%s not installed (apt-get install ansible ansible-lint); set PLATC_REQUIRE_ANSIBLE to fail instead", n)
		}
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "ANSIBLE_NOCOLOR=1")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// writeExample writes the example platform's argocd/values.yaml and
// ansible/ tree, the way build lays them out, and returns the ansible
// directory.
func writeExample(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "generated", "production")
	emittest.Write(t, root, exampleFiles(t))
	return filepath.Join(root, "ansible")
}

// The real tools accept the example platform's bootstrap: every playbook
// passes ansible-playbook --syntax-check, the inventory parses (with
// unparsed inventories as errors) and carries the platform's values, and
// ansible-lint passes with the production profile and no violations.
func TestAnsibleTools(t *testing.T) {
	requireTools(t, "ansible-playbook", "ansible-inventory", "ansible-lint")
	dir := writeExample(t)

	// One run checks site.yml and each playbook as its own entry point.
	playbooks := []string{"site.yml", "teardown.yml", "playbooks/primitives-teardown.yml"}
	for _, r := range roles {
		playbooks = append(playbooks, "playbooks/"+r+".yml")
	}
	if out, err := run(t, dir, nil, "ansible-playbook", append([]string{"--syntax-check"}, playbooks...)...); err != nil {
		t.Errorf("ansible-playbook --syntax-check: %v\n%s", err, out)
	} else if n := strings.Count(out, "playbook: "); n != len(playbooks) {
		t.Errorf("syntax-checked %d playbooks, want %d:\n%s", n, len(playbooks), out)
	}

	out, err := run(t, dir, []string{"ANSIBLE_INVENTORY_UNPARSED_FAILED=true"},
		"ansible-inventory", "-i", "inventories/production/hosts.yml", "--list")
	if err != nil {
		t.Fatalf("ansible-inventory: %v\n%s", err, out)
	}
	var inv struct {
		Meta struct {
			Hostvars map[string]map[string]any `json:"hostvars"`
		} `json:"_meta"`
		Bootstrap struct {
			Hosts []string `json:"hosts"`
		} `json:"bootstrap"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &inv); err != nil {
		t.Fatalf("inventory JSON: %v\n%s", err, out)
	}
	if !slices.Equal(inv.Bootstrap.Hosts, []string{"localhost"}) {
		t.Errorf("bootstrap hosts %v", inv.Bootstrap.Hosts)
	}
	vars := inv.Meta.Hostvars["localhost"]
	// Platform values are !unsafe, which ansible-inventory shows as
	// {"__ansible_unsafe": value}; platc's own templates are not.
	for k, want := range map[string]any{
		"argocd_chart_version":           "9.3.7",
		"argo_workflows_namespace":       "argo",
		"gitops_handoff_submit_template": "deploy",
		"argocd_expected_version":        "v3.2.6",
	} {
		if got := unsafeValue(t, k, vars[k]); got != want {
			t.Errorf("inventory %s = %v, want %v", k, got, want)
		}
	}
	if v, ok := vars["argocd_values_file"].(string); !ok || !strings.HasPrefix(v, "{{ inventory_dir }}") {
		t.Errorf("argocd_values_file = %v, want platc's own template, not !unsafe", vars["argocd_values_file"])
	}
	root := vars["gitops_handoff_values"].(map[string]any)["applications"].(map[string]any)["platc-root"].(map[string]any)
	if got := unsafeValue(t, "root app path", root["source"].(map[string]any)["path"]); got != "generated/production/argocd/apps" {
		t.Errorf("root app path %v", got)
	}

	out, err = run(t, dir, nil, "ansible-lint", "--nocolor")
	if err != nil || !strings.Contains(out, "Passed with production profile: 0 failure(s), 0 warning(s)") {
		t.Errorf("ansible-lint: %v\n%s", err, out)
	}
}

// The checks above can fail: a role that installs with helm from a shell
// after a sleep, ignoring errors, fails ansible-lint; an inventory Ansible
// cannot parse fails ansible-inventory.
func TestAnsibleToolsReject(t *testing.T) {
	requireTools(t, "ansible-inventory", "ansible-lint")
	dir := writeExample(t)
	tasks := filepath.Join(dir, "roles", "argocd", "tasks", "main.yml")
	data, err := os.ReadFile(tasks)
	if err != nil {
		t.Fatal(err)
	}
	bad := "- name: Apply | Wait a bit\n  ansible.builtin.pause:\n    seconds: 30\n" +
		"- name: Apply | Install by hand\n  ansible.builtin.shell: helm upgrade --install argocd argo/argo-cd\n  ignore_errors: true\n"
	if err := os.WriteFile(tasks, append(data, bad...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "ansible-lint", "--nocolor")
	if err == nil {
		t.Errorf("ansible-lint accepted shell helm and ignore_errors:\n%s", out)
	}
	for _, rule := range []string{"ignore-errors", "no-changed-when"} {
		if !strings.Contains(out, rule) {
			t.Errorf("ansible-lint did not report %s:\n%s", rule, out)
		}
	}

	hosts := filepath.Join(dir, "inventories", "production", "hosts.yml")
	if err := os.WriteFile(hosts, []byte("all: [unbalanced\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, dir, []string{"ANSIBLE_INVENTORY_UNPARSED_FAILED=true"},
		"ansible-inventory", "-i", "inventories/production/hosts.yml", "--list"); err == nil {
		t.Errorf("ansible-inventory accepted a broken inventory:\n%s", out)
	}
}

// Building twice gives the same bytes (INV-3).
func TestDeterministic(t *testing.T) {
	a, b := exampleFiles(t), exampleFiles(t)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s differs between two builds", path)
		}
	}
}

// unsafeValue unwraps a value ansible-inventory shows as !unsafe, and
// fails when it is not.
func unsafeValue(t *testing.T, what string, v any) any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 || m["__ansible_unsafe"] == nil {
		t.Errorf("%s = %v, not !unsafe", what, v)
		return v
	}
	return m["__ansible_unsafe"]
}

// TestVariablesNotTemplated is the audit's command execution on the
// bootstrap host (issue 13), run through Ansible itself: a Jinja lookup
// in a platform value must not run when a task reads the variable. The
// compiler refuses such values; here they are put into the program
// behind its back, to prove the variables file alone keeps them inert.
func TestVariablesNotTemplated(t *testing.T) {
	requireTools(t, "ansible")
	marker := filepath.Join(t.TempDir(), "pwned")
	payload := "{{ lookup('pipe', 'touch " + marker + "') }}"
	p := emittest.Example(t, "../..")
	p.Platform.Git.RepoURL = "https://git.example.com/p.git" + payload
	p.Platform.ArgoCD.Version = "v3.4.4" + payload
	p.Platform.Bootstrap.ArgoCDChart = "10.1.1{% if lookup('pipe', 'touch " + marker + "') %}{% endif %}"
	root := filepath.Join(t.TempDir(), "generated", "production")
	emittest.Write(t, root, emittest.Emit(t, p, argocd.Values{}, ansible.Emitter{}))
	dir := filepath.Join(root, "ansible")
	for _, v := range []string{"platc_git_repo_url", "argocd_expected_version", "argocd_chart_version"} {
		// debug's msg is templated, and so is the variable it reads.
		out, err := run(t, dir, nil, "ansible", "localhost", "-i", "inventories/production/hosts.yml",
			"-m", "ansible.builtin.debug", "-a", "msg={{ "+v+" }}")
		if err != nil {
			t.Fatalf("ansible debug %s: %v\n%s", v, err, out)
		}
		if !strings.Contains(out, "lookup('pipe'") {
			t.Errorf("%s was not shown as written:\n%s", v, out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("reading %s ran the command in its value:\n%s", v, out)
		}
	}
}

// TestHandoffSubmitSwitch runs the gitops-handoff role's second unit (the
// deploy workflow's submission) with the real ansible-playbook: with
// gitops_handoff_submit false, as platc deploy passes it when it runs the
// bootstrap again to reconcile, nothing of it runs and the play ends
// well; with true it runs (and here fails its first pre-check, since no
// argocd role ran before it).
func TestHandoffSubmitSwitch(t *testing.T) {
	requireTools(t, "ansible-playbook")
	role := string(exampleFiles(t)["ansible/roles/gitops-handoff/tasks/main.yml"])
	const reset = "- name: Pre-check | Reset the result of the GitOps handoff\n"
	first := strings.Index(role, reset)
	second := strings.Index(role[first+1:], reset)
	if first < 0 || second < 0 {
		t.Fatal("the role no longer has two units starting with the reset")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "submit.yml"), []byte("---\n"+role[first+1+second:]), 0o600); err != nil {
		t.Fatal(err)
	}
	play := `- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    gitops_handoff_status: success
  tasks:
    - ansible.builtin.import_tasks: submit.yml
    - name: After the unit
      ansible.builtin.debug:
        msg: "handoff {{ gitops_handoff_status }}"
`
	if err := os.WriteFile(filepath.Join(dir, "play.yml"), []byte(play), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, dir, nil, "ansible-playbook", "-i", "localhost,", "-e", `{"gitops_handoff_submit": false}`, "play.yml")
	if err != nil || !strings.Contains(out, "handoff success") || strings.Contains(out, "gitops-handoff needs argocd") {
		t.Errorf("gitops_handoff_submit false: %v\n%s", err, out)
	}
	out, err = run(t, dir, nil, "ansible-playbook", "-i", "localhost,", "-e", `{"gitops_handoff_submit": true}`, "play.yml")
	if err == nil || !strings.Contains(out, "gitops-handoff needs argocd") {
		t.Errorf("gitops_handoff_submit true: the unit did not run: %v\n%s", err, out)
	}
}
