package executor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/lang"
)

// TestAnsibleRunner runs the real ansible-playbook on a bootstrap
// directory laid out as bootstrap writes it, and checks the playbook sees
// the extra variables from the file and the kubeconfig through the
// environment, while the kubeconfig's token never reaches the log.
func TestAnsibleRunner(t *testing.T) {
	bin := ansiblePlaybook(t)
	dir := t.TempDir()
	files := []emit.File{
		{Path: "ansible/inventories/staging/hosts.yml", Data: []byte("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n      ansible_python_interpreter: auto_silent\n")},
		{Path: "ansible/site.yml", Data: []byte(`- hosts: all
  gather_facts: false
  tasks:
    - name: show what platc handed over
      ansible.builtin.debug:
        msg: "env={{ platc_environment }} ns={{ platc_workflows_namespace }} kubeconfig-ok={{ lookup('ansible.builtin.env', 'KUBECONFIG') == platc_kubeconfig }} has-kubeconfig={{ lookup('ansible.builtin.file', platc_kubeconfig) is search('server:') }}"
`)},
	}
	kubeconfig := []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: tok-should-not-leak}}]\n")
	cfg := &config.Config{Action: config.Deploy, Program: &ir.Program{
		Platform: ir.Platform{Name: "acme", Workflows: ir.Workflows{Namespace: "argo"}, ArgoCD: ir.ArgoCD{Namespace: "argocd"}},
		Env:      ir.Environment{Name: "staging"},
	}, KubeconfigBytes: kubeconfig}
	var logs bytes.Buffer
	log := logging.New(&logs, logging.Options{Action: "deploy"})
	log.Redact("tok-should-not-leak")
	r := &run{cfg: cfg, log: log, env: Env{ToolPath: filepath.Dir(bin) + ":/usr/bin:/bin"}}
	if err := writeBootstrapDir(dir, files, kubeconfig, r.bootstrapVars(dir)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "kubeconfig")); st.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode %v, want 0600", st.Mode().Perm())
	}
	args := bootstrapArgs("staging")
	if err := r.ansible(context.Background(), filepath.Join(dir, "ansible"), filepath.Join(dir, "kubeconfig"), args); err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, logs.String())
	}
	for _, want := range []string{"env=staging ns=argo kubeconfig-ok=True has-kubeconfig=True", "[deploy/-/ansible]"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "tok-should-not-leak") {
		t.Error("the kubeconfig token reached the log")
	}

	// A failing playbook is an error naming ansible-playbook.
	if err := os.WriteFile(filepath.Join(dir, "ansible/site.yml"), []byte("- hosts: all\n  gather_facts: false\n  tasks:\n    - ansible.builtin.fail: {msg: boom}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := r.ansible(context.Background(), filepath.Join(dir, "ansible"), filepath.Join(dir, "kubeconfig"), args); err == nil || !strings.Contains(err.Error(), "ansible-playbook") || !strings.Contains(logs.String(), "boom") {
		t.Errorf("failing playbook: err %v\n%s", err, logs.String())
	}
}

// TestGeneratedBootstrap lays out the example platform's real generated
// tree as bootstrap does and has the real ansible-playbook check it
// (--syntax-check) from there: the generated ansible.cfg, inventory and
// roles resolve, and the variables file is found. Running it for real
// needs Helm charts from the internet, which this machine cannot reach.
func TestGeneratedBootstrap(t *testing.T) {
	bin := ansiblePlaybook(t)
	mod, diags := lang.Parse("../examples/platform.hcl")
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: "production"})
	if prog == nil {
		t.Fatal(append(diags, cdiags...))
	}
	files, err := generatedFiles(prog)
	if err != nil {
		t.Fatal(err)
	}
	var ansibleN, argocdN int
	for _, f := range files {
		switch {
		case strings.HasPrefix(f.Path, "ansible/"):
			ansibleN++
		case strings.HasPrefix(f.Path, "argocd/"):
			argocdN++
		}
	}
	if ansibleN == 0 || argocdN == 0 {
		t.Fatalf("generated %d Ansible and %d Argo CD files", ansibleN, argocdN)
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	r := &run{cfg: &config.Config{Action: config.Deploy, Program: prog}, log: logging.New(&logs, logging.Options{Action: "deploy"}),
		env: Env{ToolPath: filepath.Dir(bin) + ":/usr/bin:/bin"}}
	if err := writeBootstrapDir(dir, files, []byte("apiVersion: v1\nkind: Config\n"), r.bootstrapVars(dir)); err != nil {
		t.Fatal(err)
	}
	// deploy submits its own deploy workflow after the bootstrap, so it
	// turns the gitops-handoff role's submission off, by a variable the
	// role must declare: a misspelt name would leave it on, and two
	// deploy workflows would run at once.
	if v := r.bootstrapVars(dir)["gitops_handoff_submit"]; v != false {
		t.Errorf("bootstrap passes gitops_handoff_submit=%v, want false", v)
	}
	declared := false
	for _, f := range files {
		if f.Path == "ansible/roles/gitops-handoff/defaults/main.yml" {
			declared = bytes.Contains(f.Data, []byte("\ngitops_handoff_submit: true\n"))
		}
	}
	if !declared {
		t.Error("the gitops-handoff role's defaults do not declare gitops_handoff_submit: true")
	}
	args := append(bootstrapArgs("production"), "--syntax-check")
	if err := r.ansible(context.Background(), filepath.Join(dir, "ansible"), filepath.Join(dir, "kubeconfig"), args); err != nil {
		t.Fatalf("ansible-playbook --syntax-check on the generated tree: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "playbook: site.yml") {
		t.Errorf("unexpected output:\n%s", logs.String())
	}
}

// ansiblePlaybook finds ansible-playbook, skipping the test without it
// unless PLATC_REQUIRE_ANSIBLE=1 (set by CI) makes that a failure.
func ansiblePlaybook(t *testing.T) string {
	bin, err := exec.LookPath("ansible-playbook")
	if err != nil {
		if os.Getenv("PLATC_REQUIRE_ANSIBLE") == "1" {
			t.Fatal("PLATC_REQUIRE_ANSIBLE=1 but ansible-playbook is not installed")
		}
		t.Skip("ansible-playbook is not installed")
	}
	return bin
}
