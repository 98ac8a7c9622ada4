package ansible_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Stop()
	os.Exit(code)
}

const credentialsPlatform = `
platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
  credential "platform-git" {
    type     = "basic_auth"
    repo_url = "https://git.example.com/platform.git"
  }
  credential "ops" {
    type       = "ssh_key"
    path       = "keys/ops"
    url_prefix = "ssh://git@git.example.com/ops/"
  }
  credential "charts" {
    type     = "basic_auth"
    repo_url = "oci://registry.example.com/charts"
  }
  credential "registry" {
    type       = "docker_config"
    path       = "registry/.dockerconfigjson"
    namespaces = ["web", "dns"]
  }
  credential "dns-token" {
    type       = "dns_token"
    key        = "api-token"
    namespaces = ["dns"]
  }
}
app "web" {
  namespace = "web"
  source {
    chart    = "web"
    repo_url = "oci://registry.example.com/charts"
    version  = "1.0.0"
  }
}
app "dns" {
  namespace = "dns"
  source {
    path            = "dns"
    repo_url        = "ssh://git@git.example.com/ops/dns.git"
    target_revision = "v1"
  }
}
`

// The credentials unit of the gitops-handoff role, run by the real
// ansible-playbook against a real kube-apiserver: every Secret is
// created with Argo CD's labels and exactly the bytes of its files, the
// files' content is never templated (a Jinja lookup in a password stays
// text) and never printed, and a missing file stops the unit naming the
// file only.
func TestCredentialSecrets(t *testing.T) {
	requireTools(t, "ansible-playbook")
	srv := testenv.Require(t)
	kc, _ := srv.Clients(t)
	ctx := context.Background()
	// The server is this test process's own: web and dns do not exist
	// (the unit creates them), argocd does, as after the argocd role.
	for _, ns := range []string{"web", "dns"} {
		if _, err := kc.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("namespace %s exists before the unit runs (%v)", ns, err)
		}
	}
	srv.Namespace(t, "argocd")

	dir := t.TempDir()
	unit := credentialsUnit(t, srv, dir, credentialsPlatform)

	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "pwned")
	secrets := filepath.Join(dir, "secrets")
	files := map[string]string{
		"platform-git/username":      "platc-bot",
		"platform-git/password":      "glpat-{{ lookup('pipe', 'touch " + marker + "') }}",
		"keys/ops":                   string(pem.EncodeToMemory(block)),
		"charts/username":            "robot$charts",
		"charts/password":            "s3cr3t-chart-password",
		"registry/.dockerconfigjson": `{"auths":{"registry.example.com":{"auth":"cm9ib3Q6cHVsbC1wYXNzd29yZA=="}}}`,
		"dns-token":                  "dns-provider-token-value\n",
	}
	for name, v := range files {
		pth := filepath.Join(secrets, name)
		if err := os.MkdirAll(filepath.Dir(pth), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pth, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	playbook := func(secretsDir string) (string, error) {
		return unit("-e", `{"platc_secrets_dir": "`+secretsDir+`"}`)
	}
	// A Secret left from an earlier credential of the same name, with a
	// key and a label platc does not write: replaced, not merged.
	if _, err := kc.CoreV1().Secrets("argocd").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "platc-repo-platform-git", Namespace: "argocd", Labels: map[string]string{"stale": "yes"}},
		Data:       map[string][]byte{"sshPrivateKey": []byte("an old key")},
	}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	out, err := playbook(secrets)
	if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, out)
	}
	noValues := func(out string) {
		t.Helper()
		for name, v := range files {
			// As written, and base64-encoded as slurp reads it.
			for _, part := range []string{strings.TrimSpace(v), base64.StdEncoding.EncodeToString([]byte(v))[:12], "glpat-", "cm9ib3Q6cHVsbC1wYXNzd29yZA"} {
				if len(part) > 8 && strings.Contains(out, part) {
					t.Errorf("the output shows %s's content (%q):\n%s", name, part, out)
				}
			}
		}
	}
	noValues(out)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a Jinja lookup in a password file ran")
	}

	for _, want := range []struct {
		ns, name, typ, secretType string
		data                      map[string]string
		stringData                map[string]string
	}{
		{"argocd", "platc-repo-platform-git", "Opaque", "repository",
			map[string]string{"username": files["platform-git/username"], "password": files["platform-git/password"]},
			map[string]string{"url": "https://git.example.com/platform.git", "type": "git"}},
		{"argocd", "platc-creds-ops", "Opaque", "repo-creds",
			map[string]string{"sshPrivateKey": files["keys/ops"]},
			map[string]string{"url": "ssh://git@git.example.com/ops/", "type": "git"}},
		{"argocd", "platc-repo-charts", "Opaque", "repository",
			map[string]string{"username": files["charts/username"], "password": files["charts/password"]},
			map[string]string{"url": "oci://registry.example.com/charts", "type": "helm", "enableOCI": "true", "name": "charts"}},
		{"web", "registry", "kubernetes.io/dockerconfigjson", "",
			map[string]string{".dockerconfigjson": files["registry/.dockerconfigjson"]}, nil},
		{"dns", "registry", "kubernetes.io/dockerconfigjson", "",
			map[string]string{".dockerconfigjson": files["registry/.dockerconfigjson"]}, nil},
		{"dns", "dns-token", "Opaque", "",
			map[string]string{"api-token": files["dns-token"]}, nil},
	} {
		s, err := kc.CoreV1().Secrets(want.ns).Get(ctx, want.name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("%s/%s: %v", want.ns, want.name, err)
			continue
		}
		if string(s.Type) != want.typ || s.Labels["argocd.argoproj.io/secret-type"] != want.secretType || s.Labels["app.kubernetes.io/managed-by"] != "platc" || s.Labels["stale"] != "" {
			t.Errorf("%s/%s: type %s, labels %v", want.ns, want.name, s.Type, s.Labels)
		}
		if len(s.Data) != len(want.data)+len(want.stringData) {
			t.Errorf("%s/%s holds keys %v", want.ns, want.name, keys(s.Data))
		}
		for k, v := range want.data {
			if string(s.Data[k]) != v {
				t.Errorf("%s/%s: %s is not the file's content byte for byte", want.ns, want.name, k)
			}
		}
		for k, v := range want.stringData {
			if string(s.Data[k]) != v {
				t.Errorf("%s/%s: %s = %q, want %q", want.ns, want.name, k, s.Data[k], v)
			}
		}
	}

	// A rotated file is written over on the next run.
	if err := os.WriteFile(filepath.Join(secrets, "charts/password"), []byte("rotated-chart-password"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := playbook(secrets); err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	if s, err := kc.CoreV1().Secrets("argocd").Get(ctx, "platc-repo-charts", metav1.GetOptions{}); err != nil || string(s.Data["password"]) != "rotated-chart-password" {
		t.Errorf("the rotated password did not reach the Secret (%v)", err)
	}

	// A missing file stops the unit, naming the file, before any Secret.
	if err := os.Remove(filepath.Join(secrets, "keys/ops")); err != nil {
		t.Fatal(err)
	}
	out, err = playbook(secrets)
	if err == nil || !strings.Contains(out, "missing under "+secrets+": keys/ops") || !strings.Contains(out, "credentials: failed") {
		t.Errorf("a missing key file: %v\n%s", err, out)
	}
	noValues(out)
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The credentials unit of a platform that declares none runs without a
// secrets directory (platc deploy passes platc_secrets_dir only when one
// is mounted) and changes nothing: every scenario without credentials
// bootstraps through it.
func TestNoCredentialsNoSecretsDir(t *testing.T) {
	requireTools(t, "ansible-playbook")
	srv := testenv.Require(t)
	kc, _ := srv.Clients(t)
	srv.Namespace(t, "argocd")
	unit := credentialsUnit(t, srv, t.TempDir(), `
platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
app "web" {
  namespace = "web"
  source { path = "apps/web" }
}
`)
	// The server is the package's: other tests' Secrets may be there.
	secrets := func() int {
		list, err := kc.CoreV1().Secrets("argocd").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(list.Items)
	}
	before := secrets()
	out, err := unit()
	if err != nil {
		t.Fatalf("ansible-playbook without credentials or a secrets directory: %v\n%s", err, out)
	}
	if !strings.Contains(out, "credentials: success") {
		t.Errorf("the credentials unit did not report success:\n%s", out)
	}
	if after := secrets(); after != before {
		t.Errorf("a platform without credentials changed the Secrets in argocd: %d, then %d", before, after)
	}
}

// credentialsUnit writes, under dir, the generated files of the platform
// src and a play that runs only gitops-handoff's credentials unit, with a
// kubeconfig for srv; it returns how to run that play with extra
// ansible-playbook arguments.
func credentialsUnit(t *testing.T, srv *testenv.Server, dir, src string) func(extra ...string) (string, error) {
	t.Helper()
	ansibleDir := filepath.Join(dir, "generated", "default", "ansible")
	p := emittest.Compile(t, "platform.hcl", []byte(src), "")
	files := emittest.Emit(t, p, argocd.Values{}, ansible.Emitter{})
	emittest.Write(t, filepath.Join(dir, "generated", "default"), files)
	role := string(files["ansible/roles/gitops-handoff/tasks/main.yml"])
	end := strings.Index(role, "- name: Pre-check | Reset the result of the GitOps handoff\n")
	if end < 0 || !strings.Contains(role[:end], "Reset the result of the credentials") {
		t.Fatal("the gitops-handoff role no longer opens with the credentials unit")
	}
	play := "- name: Credentials\n  hosts: bootstrap\n  gather_facts: false\n  tasks:\n    - name: The credentials unit\n      ansible.builtin.import_tasks: credentials.yml\n"
	kubeconfig := filepath.Join(dir, "kubeconfig")
	for name, data := range map[string][]byte{
		filepath.Join(ansibleDir, "credentials.yml"): []byte(role[:end]),
		filepath.Join(ansibleDir, "play.yml"):        []byte(play),
		kubeconfig:                                   srv.Kubeconfig(testenv.AdminToken),
	} {
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"K8S_AUTH_KUBECONFIG=" + kubeconfig, "KUBECONFIG=" + kubeconfig}
	return func(extra ...string) (string, error) {
		args := append([]string{"-i", "inventories/default/hosts.yml", "-v"}, extra...)
		return run(t, ansibleDir, env, "ansible-playbook", append(args, "play.yml")...)
	}
}
