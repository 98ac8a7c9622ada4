package preflight

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Version outputs as the real tools print them.
func TestToolPatterns(t *testing.T) {
	outputs := map[string]map[string]string{
		"ansible-playbook": {"ansible-playbook [core 2.14.18]\n  config file = None": "2.14.18", "ansible-playbook [core 2.17.7]": "2.17.7"},
		"kubectl":          {"Client Version: v1.32.4-dispatcher\nKustomize Version: v5.5.0": "1.32.4", "Client Version: v1.28.0": "1.28.0"},
		"helm":             {"v3.16.3+gcbc7bc4": "3.16.3", "v3.12.0": "3.12.0"},
		"kubeseal":         {"kubeseal version: 0.27.1": "0.27.1", "kubeseal version: v0.24.5": "0.24.5"},
		"jq":               {"jq-1.6": "1.6.0", "jq-1.7.1": "1.7.1"},
		"yq":               {"yq (https://github.com/mikefarah/yq/) version v4.44.3": "4.44.3", "yq 3.1.0": "3.1.0"},
	}
	for _, tool := range Tools {
		for out, want := range outputs[tool.Name] {
			m := tool.Pattern.FindStringSubmatch(out)
			if m == nil {
				t.Errorf("%s: no version found in %q", tool.Name, out)
				continue
			}
			v, err := ParseVersion(m[1])
			if err != nil || v.String() != want {
				t.Errorf("%s: %q → %v (%v), want %s", tool.Name, out, v, err, want)
			}
		}
	}
}

func script(t *testing.T, dir, name, out string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\ncat <<'EOF'\n"+out+"\nEOF\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCheckTools runs version commands found through a PATH of the test's
// own: present, missing, too old, and unreadable tools.
func TestCheckTools(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "ansible-playbook", "ansible-playbook [core 2.14.18]")
	script(t, dir, "kubectl", "Client Version: v1.31.0")
	script(t, dir, "kubeseal", "kubeseal version: 0.24.0")
	script(t, dir, "jq", "jq-1.7.1")
	script(t, dir, "yq", "yq 3.1.0")
	script(t, dir, "ansible-galaxy", `{"/c": {"kubernetes.core": {"version": "2.4.0"}, "community.general": {"version": "6.6.2"}, "ansible.posix": {"version": "1.5.4"}}}`)
	script(t, dir, "helm", "garbage")
	// Ansible's interpreter, as its version report names it: a script
	// answering the probe as importlib.metadata would.
	script(t, dir, "python", `{"kubernetes": "11.0.0", "openshift": null, "PyYAML": "6.0.2", "jsonpatch": null}`)
	if err := os.WriteFile(filepath.Join(dir, "ansible-playbook"), []byte("#!/bin/sh\ncat <<EOF\nansible-playbook [core 2.14.18]\n  python version = 3.11.2 (main, Apr 28 2025) [GCC 12.2.0] ("+dir+"/python)\nEOF\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := CheckTools(context.Background(), ToolOptions{Path: dir + ":/bin:/usr/bin"})
	got := map[string]ToolStatus{}
	for _, r := range res {
		got[r.Name] = r.Status
	}
	want := map[string]ToolStatus{
		"ansible-playbook": ToolTooOld, "kubectl": ToolOK, "helm": ToolUnreadable, "kubeseal": ToolOK, "jq": ToolOK, "yq": ToolTooOld,
		"kubernetes.core": ToolTooOld, "community.general": ToolOK, "ansible.posix": ToolOK, "ansible.utils": ToolMissing,
		"kubernetes": ToolTooOld, "openshift": ToolAbsentOptional, "PyYAML": ToolOK, "jsonpatch": ToolMissing,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	for _, r := range res {
		if r.Name == "yq" && !strings.Contains(r.Message, "not the Python yq") {
			t.Errorf("yq message lacks the hint: %s", r.Message)
		}
		if r.Name == "jsonpatch" && !strings.Contains(r.Message, dir+"/python -m pip install 'jsonpatch'") {
			t.Errorf("jsonpatch message lacks the fix: %s", r.Message)
		}
	}
	if ToolsOK(res) {
		t.Error("ToolsOK with failures")
	}
	// An optional package that is absent is not a failure.
	var ok []ToolResult
	for _, r := range res {
		if r.Status == ToolOK || r.Name == "openshift" {
			ok = append(ok, r)
		}
	}
	if !ToolsOK(ok) {
		t.Error("an absent optional package failed ToolsOK")
	}
	res = CheckTools(context.Background(), ToolOptions{Path: t.TempDir()})
	for _, r := range res {
		if r.Status != ToolMissing {
			t.Errorf("%s on an empty PATH: %s", r.Name, r.Status)
		}
	}
}

// TestRealTools runs the real tools this machine has, so the patterns are
// checked against real output, not only recorded samples.
func TestRealTools(t *testing.T) {
	dir := t.TempDir()
	n := 0
	for _, name := range []string{"kubectl", "jq", "ansible-playbook", "helm", "yq", "kubeseal"} {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n == 0 {
		t.Skip("none of the tools is installed here")
	}
	for _, r := range CheckTools(context.Background(), ToolOptions{Path: dir + ":" + os.Getenv("PATH")}) {
		if (r.Kind == "tool" && r.Path != "" || r.Kind == "python-package" && r.Path != "") && r.Status == ToolUnreadable {
			t.Errorf("%s: the real tool's version was not recognised: %s", r.Name, r.Message)
		}
		t.Logf("%s: %s", r.Name, r.Message)
	}
}

// The tools the executor runs get the host's proxy and CA settings (the
// bootstrap's Helm fetches charts with them) and nothing the executor was
// configured with.
func TestToolEnv(t *testing.T) {
	t.Setenv("HTTPS_PROXY", "http://proxy.example:3128")
	t.Setenv("no_proxy", "10.0.0.0/8")
	t.Setenv("SSL_CERT_FILE", "/etc/ssl/corp.pem")
	t.Setenv("KUBECONFIG_DATA", "secret")
	t.Setenv("ARGOCD_AUTH_TOKEN", "secret")
	env := ToolEnv("/bin")
	for _, want := range []string{"PATH=/bin", "HTTPS_PROXY=http://proxy.example:3128", "no_proxy=10.0.0.0/8", "SSL_CERT_FILE=/etc/ssl/corp.pem"} {
		if !slices.Contains(env, want) {
			t.Errorf("ToolEnv lacks %s: %v", want, env)
		}
	}
	for _, kv := range env {
		if strings.Contains(kv, "secret") {
			t.Errorf("ToolEnv passes %s", kv)
		}
	}
}
