package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/executor/preflight"
)

const reachPlatform = `
platform "acme" {
  argocd { namespace = "argocd" }
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1"
  }
  bootstrap { argo_repo = "https://mirror.example.com/argo" }
}
environment "staging" { domain = "s.example.com" }
app "a" {
  namespace = "a"
  source {
    chart    = "a"
    repo_url = "https://charts.example.com/"
    version  = "1.0.0"
  }
}
app "b" {
  namespace = "b"
  source {
    chart    = "b"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
  }
}
app "c" {
  namespace = "c"
  source { path = "apps/c" }
}
app "d" {
  namespace = "d"
  source {
    chart    = "d"
    repo_url = "oci://registry.example.com/charts"
    version  = "1.0.0"
    helm { value_files = ["$values/d/values.yaml"] }
  }
  source {
    repo_url        = "https://git.example.com/values.git"
    target_revision = "v3"
    ref             = "values"
  }
}
`

// The endpoints of a deploy: each once, with who needs it, the bootstrap's
// repositories (the platform's mirror) only when it will run.
func TestEndpoints(t *testing.T) {
	p := compileEnv(t, reachPlatform, "staging")
	r := &run{cfg: &config.Config{Action: config.Deploy, Program: p, ScopeApps: p.Apps}}
	want := []preflight.Endpoint{
		{Kind: preflight.GitRepo, URL: "https://git.example.com/platform.git", Purpose: "for the platform repository and app c", Ref: "v1"},
		{Kind: preflight.HelmRepo, URL: "https://charts.example.com/", Purpose: "for app a and app b"},
		{Kind: preflight.OCIRepo, URL: "oci://registry.example.com/charts", Purpose: "for app d"},
		{Kind: preflight.GitRepo, URL: "https://git.example.com/values.git", Purpose: "for app d"},
	}
	if diff := cmp.Diff(want, r.endpoints(false)); diff != "" {
		t.Errorf("endpoints (-want +got):\n%s", diff)
	}
	got := r.endpoints(true)
	if len(got) != 6 || got[1].URL != "https://mirror.example.com/argo" || got[2].URL != "https://bitnami-labs.github.io/sealed-secrets" {
		t.Errorf("with bootstrap: %v", got)
	}
}

// Phase 0 checks the platform's credentials on a deploy: failing when
// the bootstrap will write the Secrets from them, warning when Argo CD
// and Argo Workflows are installed and an earlier bootstrap wrote them.
func TestCredentialChecks(t *testing.T) {
	p := compileEnv(t, `
platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
  credential "platform-git" {
    type     = "basic_auth"
    repo_url = "https://git.example.com/platform.git"
  }
}
app "a" {
  namespace = "a"
  source { path = "apps/a" }
}
`, "")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "platform-git"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "platform-git", "username"), []byte("bot"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		action    config.Action
		installed bool
		want      []preflight.Status
	}{
		{config.Deploy, false, []preflight.Status{preflight.Fail}},
		{config.Deploy, true, []preflight.Status{preflight.Warn}},
		{config.Validate, false, nil},
	} {
		r := &run{cfg: &config.Config{Action: tc.action, Program: p, ScopeApps: p.Apps, SecretsDir: dir}}
		cr := &preflight.ClusterReport{ArgoCD: preflight.Component{Installed: tc.installed}, Workflows: preflight.Component{Installed: tc.installed}}
		r.credentials(cr)
		var got []preflight.Status
		for _, c := range cr.Checks {
			got = append(got, c.Status)
			if !strings.Contains(c.Message, `credential "platform-git" (basic_auth, `+filepath.Join(dir, "platform-git")+`): password: no such file`) {
				t.Errorf("message: %s", c.Message)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s, installed %t (-want +got):\n%s", tc.action, tc.installed, diff)
		}
	}
}

// Phase 0's reach checks get the login of the credential Argo CD will
// use for each repository: a repository Secret before a credential
// template, none for a public repository or unreadable files, and the
// password is redacted from the log from then on.
func TestLogins(t *testing.T) {
	p := compileEnv(t, `
platform "acme" {
  git { repo_url = "https://git.example.com/team/platform.git" }
  credential "team" {
    type       = "basic_auth"
    url_prefix = "https://git.example.com/team/"
  }
  credential "platform-git" {
    type     = "basic_auth"
    repo_url = "https://git.example.com/team/platform.git"
  }
  credential "charts" {
    type     = "basic_auth"
    repo_url = "https://charts.example.com/private"
  }
}
app "a" {
  namespace = "a"
  source {
    path            = "a"
    repo_url        = "https://git.example.com/team/a.git"
    target_revision = "v1"
  }
}
app "b" {
  namespace = "b"
  source {
    chart    = "b"
    repo_url = "https://charts.example.com/private/"
    version  = "1.0.0"
  }
}
app "c" {
  namespace = "c"
  source {
    chart    = "c"
    repo_url = "https://charts.example.com/public"
    version  = "1.0.0"
  }
}
`, "")
	dir := t.TempDir()
	for _, c := range []string{"team", "platform-git"} {
		if err := os.MkdirAll(filepath.Join(dir, c), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"username", "password"} {
			if err := os.WriteFile(filepath.Join(dir, c, f), []byte(c+"-"+f+"-value"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	var logs strings.Builder
	r := &run{cfg: &config.Config{Action: config.Deploy, Program: p, ScopeApps: p.Apps, SecretsDir: dir}, log: logging.New(&logs, logging.Options{Action: "deploy"})}
	eps := r.endpoints(false)
	r.logins(eps)
	got := map[string]string{}
	for _, e := range eps {
		if e.Login != nil {
			got[e.URL] = e.Login.Credential + " " + e.Login.User
		}
	}
	want := map[string]string{
		"https://git.example.com/team/platform.git": "platform-git platform-git-username-value",
		"https://git.example.com/team/a.git":        "team team-username-value",
		// charts' files are missing: no login, and the credential check fails.
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("logins (-want +got):\n%s", diff)
	}
	r.log.Infof("preflight", "test", "echo platform-git-password-value")
	if strings.Contains(logs.String(), "platform-git-password-value") {
		t.Errorf("the password is not redacted:\n%s", logs.String())
	}
}
