package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

// credPlatform is a platform that reads a private Git repository, a
// chart repository and an OCI chart registry, with the credential blocks
// given.
func credPlatform(creds string) string {
	return `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
  argocd { namespace = "gitops" }
` + creds + `
}
app "web" {
  namespace = "web"
  source {
    path            = "apps/web"
    repo_url        = "https://git.example.com/team/web.git"
    target_revision = "v1"
  }
  source {
    chart    = "redis"
    repo_url = "https://git.example.com/charts/private"
    version  = "1.0.0"
  }
}
app "dns" {
  namespace = "external-dns"
  source {
    chart    = "external-dns"
    repo_url = "oci://registry.example.com/charts"
    version  = "1.15.0"
  }
  source {
    path            = "apps/dns"
    repo_url        = "git@git.example.com:ops/dns.git"
    target_revision = "v2"
  }
}
`
}

func compileCreds(t *testing.T, creds string) (*ir.Program, hcl.Diagnostics) {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(credPlatform(creds))}})
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	return Compile(m, Options{})
}

func TestCredentials(t *testing.T) {
	p, diags := compileCreds(t, `
  credential "team-git" {
    type       = "basic_auth"
    url_prefix = "https://git.example.com/team/"
  }
  credential "charts" {
    type     = "basic_auth"
    path     = "helm/charts"
    repo_url = "https://git.example.com/charts/private/"
  }
  credential "oci" {
    type     = "basic_auth"
    repo_url = "oci://registry.example.com/charts"
  }
  credential "ops-ssh" {
    type     = "ssh_key"
    path     = "ops.key"
    repo_url = "git@git.example.com:ops/dns.git"
  }
  credential "registry" {
    type       = "docker_config"
    path       = "registry/.dockerconfigjson"
    namespaces = ["web", "external-dns"]
  }
  credential "route53" {
    type       = "dns_token"
    key        = "api-token"
    namespaces = ["external-dns"]
  }`)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var got []string
	for _, c := range p.Platform.Credentials {
		got = append(got, fmt.Sprintf("%s %s path=%s url=%s template=%t repo=%s oci=%t secret=%s ns=%s key=%s",
			c.Name, c.Type, c.Path, c.URL, c.Template, c.RepoType, c.OCI, c.SecretName, strings.Join(c.Namespaces, ","), c.Key))
	}
	want := []string{
		"team-git basic_auth path=team-git url=https://git.example.com/team/ template=true repo=git oci=false secret=platc-creds-team-git ns=gitops key=",
		"charts basic_auth path=helm/charts url=https://git.example.com/charts/private/ template=false repo=helm oci=false secret=platc-repo-charts ns=gitops key=",
		"oci basic_auth path=oci url=oci://registry.example.com/charts template=false repo=helm oci=true secret=platc-repo-oci ns=gitops key=",
		"ops-ssh ssh_key path=ops.key url=git@git.example.com:ops/dns.git template=false repo=git oci=false secret=platc-repo-ops-ssh ns=gitops key=",
		"registry docker_config path=registry/.dockerconfigjson url= template=false repo= oci=false secret=registry ns=web,external-dns key=",
		"route53 dns_token path=route53 url= template=false repo= oci=false secret=route53 ns=external-dns key=api-token",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("credentials (-want +got):\n%s", d)
	}
}

// Every mistake is an error at the attribute (or block) that makes it,
// with a detail that says how to fix it.
func TestCredentialErrors(t *testing.T) {
	for _, tc := range []struct {
		name, creds string
		want        string // line:col summary, lines counted in credPlatform
		detail      string
	}{
		{"unknown type", `credential "x" {
    type     = "ssh"
    repo_url = "git@git.example.com:ops/dns.git"
  }`, "5:16 Invalid type", "ssh_key, basic_auth, docker_config, dns_token"},
		{"missing type", `credential "x" {
    repo_url = "git@git.example.com:ops/dns.git"
  }`, "4:1 Missing required argument", `"type" is required`},
		{"unused repository", `credential "x" {
    type     = "basic_auth"
    repo_url = "https://git.example.com/team/wbe.git"
  }`, "6:16 Credential for a repository the platform never reads", `Did you mean "https://git.example.com/team/web.git"?`},
		{"prefix matching nothing", `credential "x" {
    type       = "basic_auth"
    url_prefix = "https://github.com/"
  }`, "6:18 Credential for a repository the platform never reads", "Correct the prefix"},
		{"ssh key over https", `credential "x" {
    type     = "ssh_key"
    repo_url = "https://git.example.com/team/web.git"
  }`, "6:16 SSH key for a repository not read over SSH", "basic_auth"},
		{"basic auth over ssh", `credential "x" {
    type     = "basic_auth"
    repo_url = "git@git.example.com:ops/dns.git"
  }`, "6:16 Basic auth for a repository read over SSH", `type = "ssh_key"`},
		{"both url forms", `credential "x" {
    type       = "basic_auth"
    repo_url   = "https://git.example.com/team/web.git"
    url_prefix = "https://git.example.com/"
  }`, "7:5 Both repo_url and url_prefix", "Remove one"},
		{"no repository", `credential "x" {
    type = "basic_auth"
  }`, "4:1 Missing repository", "url_prefix"},
		{"mixed template", `credential "x" {
    type       = "basic_auth"
    url_prefix = "https://git.example.com/"
  }`, "6:18 Credential template for Git and Helm repositories", "one repository type"},
		{"two for one repository", `credential "x" {
    type     = "basic_auth"
    repo_url = "https://git.example.com/team/web.git"
  }
  credential "y" {
    type     = "basic_auth"
    repo_url = "https://git.example.com/team/web.git/"
  }`, "10:16 Two credentials for one repository", "platform.hcl:4:1"},
		{"bootstrap repository", `credential "x" {
    type     = "basic_auth"
    repo_url = "https://argoproj.github.io/argo-helm"
  }`, "6:16 Credential for a bootstrap chart repository", "Mirror the charts"},
		{"path leaves the directory", `credential "x" {
    type     = "basic_auth"
    path     = "../etc/passwd"
    repo_url = "https://git.example.com/team/web.git"
  }`, "6:16 Invalid credential path", "leaves the secrets directory"},
		{"absolute path", `credential "x" {
    type     = "ssh_key"
    path     = "/root/.ssh/id_rsa"
    repo_url = "git@git.example.com:ops/dns.git"
  }`, "6:16 Invalid credential path", "is absolute"},
		{"unknown namespace", `credential "x" {
    type       = "docker_config"
    namespaces = ["wbe"]
  }`, "6:18 Credential for a namespace the platform never deploys into", `Did you mean "web"?`},
		{"no namespaces", `credential "x" {
    type = "dns_token"
  }`, "4:1 Missing required argument", `"namespaces" is required`},
		{"repo_url on a docker config", `credential "x" {
    type       = "docker_config"
    repo_url   = "https://git.example.com/team/web.git"
    namespaces = ["web"]
  }`, "6:5 repo_url on a docker_config credential", "Remove repo_url"},
		{"namespaces on a repository credential", `credential "x" {
    type       = "ssh_key"
    repo_url   = "git@git.example.com:ops/dns.git"
    namespaces = ["web"]
  }`, "7:5 namespaces on a repository credential", "Argo CD's namespace"},
		{"key on a docker config", `credential "x" {
    type       = "docker_config"
    key        = "token"
    namespaces = ["web"]
  }`, "6:5 key on a docker_config credential", ".dockerconfigjson"},
		{"duplicate name", `credential "x" {
    type       = "dns_token"
    namespaces = ["web"]
  }
  credential "x" {
    type       = "dns_token"
    namespaces = ["web"]
  }`, "8:14 Duplicate credential", "platform.hcl:4:12"},
		{"bad name", `credential "Team" {
    type       = "dns_token"
    namespaces = ["web"]
  }`, "4:12 Invalid credential name", "team"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, diags := compileCreds(t, tc.creds)
			if !diags.HasErrors() || p != nil {
				t.Fatalf("want an error, got %v", diags)
			}
			var got []string
			for _, d := range diags {
				got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
			}
			if got[0] != tc.want || len(got) != 1 {
				t.Errorf("diagnostics:\n%s\nwant:\n%s\n(%s)", strings.Join(got, "\n"), tc.want, diags.Error())
			}
			if !strings.Contains(diags[0].Detail, tc.detail) {
				t.Errorf("detail %q does not say %q", diags[0].Detail, tc.detail)
			}
			if diags[0].Subject.Filename != "platform.hcl" {
				t.Errorf("diagnostic without a file: %v", diags[0].Subject)
			}
		})
	}
}
