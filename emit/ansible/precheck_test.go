package ansible_test

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/internal/synth/synthtest"
	"github.com/platc/platc/internal/testenv"
)

// reachTasks returns every role's "Pre-check | Reach the Kubernetes API"
// task, by task file, looking inside blocks.
func reachTasks(t *testing.T, files map[string][]byte) map[string]map[string]any {
	t.Helper()
	found := map[string]map[string]any{}
	var walk func(path string, tasks []any)
	walk = func(path string, tasks []any) {
		for _, x := range tasks {
			task, _ := x.(map[string]any)
			if task["name"] == "Pre-check | Reach the Kubernetes API" {
				found[path] = task
			}
			for _, key := range []string{"block", "rescue", "always"} {
				if inner, ok := task[key].([]any); ok {
					walk(path, inner)
				}
			}
		}
	}
	for path, data := range files {
		if strings.HasPrefix(path, "ansible/roles/") && strings.Contains(path, "/tasks/") {
			tasks, _ := parse(t, path, data).([]any)
			walk(path, tasks)
		}
	}
	return found
}

// A role's first contact with the API waits for it. A cluster created a
// moment ago, or a control plane being replaced, refuses connections for
// a while, and the kubernetes.core modules then crash (MODULE FAILURE)
// rather than fail. Here the API's address drops connections for the
// first seconds and then reaches the real kube-apiserver: the pre-check,
// exactly as every role carries it, must retry and pass.
func TestPreCheckWaitsForTheAPI(t *testing.T) {
	requireTools(t, "ansible-playbook")
	found := reachTasks(t, exampleFiles(t))
	var paths []string
	for p := range found {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) < 5 {
		t.Fatalf("the pre-check in %d task files (%v), want the four bootstrap roles and the primitives teardown", len(paths), paths)
	}
	task := found["ansible/roles/argocd/tasks/main.yml"]
	for _, p := range paths {
		other := found[p]
		reg, _ := other["register"].(string)
		if reg == "" || other["until"] != reg+" is succeeded" || !reflect.DeepEqual(other["retries"], task["retries"]) ||
			!reflect.DeepEqual(other["delay"], task["delay"]) || !reflect.DeepEqual(other["kubernetes.core.k8s_cluster_info"], task["kubernetes.core.k8s_cluster_info"]) {
			t.Errorf("%s: the pre-check %v differs from the argocd role's %v", p, other, task)
		}
	}

	srv := testenv.Require(t)
	srv.ClusterNodes(t, 1)
	u := srv.Rest(testenv.AdminToken)
	// An API address that, like a server still starting, closes every
	// connection unanswered until 5 s after the first one, then reaches
	// the real kube-apiserver. Counted from the first connection rather
	// than from the start, so a slow machine cannot skip the refusals.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	addr := l.Addr().String()
	upstream := strings.TrimPrefix(u.Host, "https://")
	go func() {
		var first time.Time
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if first.IsZero() {
				first = time.Now()
			}
			if time.Since(first) < 5*time.Second {
				c.Close()
				continue
			}
			go forward(c, upstream)
		}
	}()

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	kc := strings.Replace(string(srv.Kubeconfig(testenv.AdminToken)), upstream, addr, 1)
	if !strings.Contains(kc, addr) {
		t.Fatalf("the kubeconfig does not name %s:\n%s", upstream, kc)
	}
	if err := os.WriteFile(kubeconfig, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	tasks, err := yaml.Marshal([]any{task, map[string]any{
		"name":                     "List the cluster nodes",
		"kubernetes.core.k8s_info": map[string]any{"kind": "Node"},
		"register":                 "nodes",
		"failed_when":              "nodes.resources | length == 0",
	}})
	if err != nil {
		t.Fatal(err)
	}
	play := "- name: Pre-check\n  hosts: localhost\n  connection: local\n  gather_facts: false\n  vars:\n    platc_api_retries: 20\n    platc_api_delay: 1\n  tasks:\n" + indent(string(tasks), "    ")
	if err := os.WriteFile(filepath.Join(dir, "play.yml"), []byte(play), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"K8S_AUTH_KUBECONFIG=" + kubeconfig, "KUBECONFIG=" + kubeconfig, "TMPDIR=" + dir}
	out, err := run(t, dir, env, "ansible-playbook", "-i", "localhost,", "play.yml")
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	if !strings.Contains(out, "FAILED - RETRYING: [localhost]: Pre-check | Reach the Kubernetes API") {
		t.Errorf("the pre-check never met a dropped connection, so this test proves nothing:\n%s", out)
	}
}

func forward(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go io.Copy(u, c)
	io.Copy(c, u)
}

// A role that fails records why in words an operator can act on: a
// crashed module's "MODULE FAILURE" is replaced by the last line of its
// traceback, and text from a module (a server's answer, a crash) stays
// text, never a template. The whole argocd playbook runs against an
// address that never answers, then the rescue's expression meets a
// module whose output is Jinja, and a wait that runs out of attempts.
func TestFailureReason(t *testing.T) {
	requireTools(t, "ansible-playbook")
	dir := writeExample(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	srv := testenv.Require(t)
	kc := strings.Replace(string(srv.Kubeconfig(testenv.AdminToken)), strings.TrimPrefix(srv.Rest(testenv.AdminToken).Host, "https://"), dead, 1)
	if err := os.WriteFile(kubeconfig, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"K8S_AUTH_KUBECONFIG=" + kubeconfig, "KUBECONFIG=" + kubeconfig, "TMPDIR=" + t.TempDir()}
	out, err := run(t, dir, env, "ansible-playbook", "-e", "platc_api_retries=2", "-e", "platc_api_delay=1", "playbooks/argocd.yml")
	if err == nil {
		t.Fatalf("the argocd playbook passed against %s, where nothing listens:\n%s", dead, out)
	}
	const want = "argocd: failed (Pre-check | Reach the Kubernetes API: urllib3.exceptions.MaxRetryError: "
	if !strings.Contains(out, want) || !strings.Contains(out, "Connection refused") {
		t.Errorf("the outcome does not name the refused connection; want %q and %q in:\n%s", want, "Connection refused", out)
	}

	// The rescue's expression, from the generated group_vars, against a
	// module that crashes with Jinja on stderr and one that fails with
	// Jinja as its message.
	var vars map[string]any
	if err := yaml.Unmarshal(exampleFiles(t)["ansible/inventories/production/group_vars/all.yml"], &vars); err != nil {
		t.Fatal(err)
	}
	play := t.TempDir()
	marker := filepath.Join(play, "pwned")
	module := "#!/usr/bin/python3\n# WANT_JSON\nimport json, sys\nargs = json.load(open(sys.argv[1]))\n" +
		"payload = \"{{ lookup('pipe', 'touch " + marker + "') }}\"\n" +
		"if args['mode'] == 'crash':\n    sys.stderr.write('Traceback (most recent call last):\\nValueError: ' + payload + '\\n')\n    sys.exit(1)\n" +
		"print(json.dumps({'failed': True, 'msg': payload}))\n"
	if err := os.Mkdir(filepath.Join(play, "library"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(play, "library", "crash.py"), []byte(module), 0o700); err != nil {
		t.Fatal(err)
	}
	reasonVars := map[string]any{}
	for k, v := range vars {
		if strings.HasPrefix(k, "platc_failure_") {
			reasonVars[k] = v
		}
	}
	var tasks []any
	for _, mode := range []string{"crash", "msg"} {
		tasks = append(tasks, map[string]any{
			"block":  []any{map[string]any{"name": "Fail by " + mode, "crash": map[string]any{"mode": mode}}},
			"rescue": []any{map[string]any{"name": "Report", "ansible.builtin.debug": map[string]any{"msg": "reason={{ platc_failure_reason }}"}}},
		})
	}
	// A wait that runs out of attempts has no message of its own.
	tasks = append(tasks, map[string]any{
		"block": []any{map[string]any{"name": "Wait", "ansible.builtin.stat": map[string]any{"path": "/"}, "register": "st",
			"retries": 2, "delay": 0, "until": false}},
		"rescue": []any{map[string]any{"name": "Report", "ansible.builtin.debug": map[string]any{"msg": "reason={{ platc_failure_reason }}"}}},
	})
	data, err := yaml.Marshal([]any{map[string]any{"name": "Reasons", "hosts": "localhost", "connection": "local", "gather_facts": false, "vars": reasonVars, "tasks": tasks}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(play, "play.yml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, play, nil, "ansible-playbook", "-i", "localhost,", "play.yml")
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	payload := "{{ lookup('pipe', 'touch " + marker + "') }}"
	for _, want := range []string{"reason=Fail by crash: ValueError: " + payload, "reason=Fail by msg: " + payload, "reason=Wait: gave up after 2 attempts"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a module's output ran as a template: %s exists", marker)
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// The handoff's wait for the root to create every Application grows with
// the platform: Argo CD creates them one by one (1,000 took 4m21s on the
// 2-core box), and a fixed ten minutes made the bootstrap of 10,000
// synthetic apps roll back before the root had created them.
func TestHandoffWaitGrowsWithTheApps(t *testing.T) {
	retries := func(p *ir.Program) int {
		t.Helper()
		files := emittest.Emit(t, p, argocd.Values{}, ansible.Emitter{})
		var vars struct {
			Retries int `json:"gitops_handoff_sync_retries"`
			Delay   int `json:"gitops_handoff_sync_delay"`
		}
		if err := yaml.Unmarshal(files["ansible/inventories/"+p.Env.Name+"/group_vars/all.yml"], &vars); err != nil {
			t.Fatal(err)
		}
		if vars.Delay != 0 {
			t.Errorf("group_vars set the delay to %d; the role's default (10 s) is what the retries are counted in", vars.Delay)
		}
		return vars.Retries
	}
	for _, c := range []struct {
		apps, want int
	}{{1000, 110}, {10000, 560}} {
		if got := retries(synthtest.Program(t, synthtest.Options(c.apps))); got != c.want {
			t.Errorf("%d apps: %d attempts of 10 s, want %d", c.apps, got, c.want)
		}
	}
	if got := retries(emittest.Example(t, "../..")); got != 63 {
		t.Errorf("the example's 43 apps: %d attempts, want 63", got)
	}
}
