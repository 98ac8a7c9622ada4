package lang

import (
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// TestOverride: the override's values replace the platform's, only in the
// environment it names, with ranges in its own file; blocks the platform
// lacks are created; fields it leaves empty keep what the HCL says.
func TestOverride(t *testing.T) {
	src := `platform "acme" {
  git { repo_url = "https://git.example.com/a.git" }
  workflows { namespace = "wf" }
}
environment "production" { domain = "old.example.org" }
environment "staging" { domain = "staging.example.org" }
defaults {
  timeouts { sync = "5m" }
}
`
	m, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	limit := 3
	m.Override(Override{
		Source: "/config/environment.yaml", Environment: "production",
		Domain: "prod.example.org", GitRevision: "v2", ArgoCDNamespace: "gitops",
		HealthTimeout: "9m", RetryLimit: &limit,
	})
	str := func(a *hcl.Attribute) string {
		t.Helper()
		if a == nil {
			return "<nil>"
		}
		v, d := a.Expr.Value(nil)
		if d.HasErrors() {
			t.Fatal(d.Error())
		}
		if v.Type() == cty.Number {
			return v.AsBigFloat().Text('f', -1)
		}
		return v.AsString()
	}
	for _, c := range []struct {
		what string
		attr *hcl.Attribute
		want string
		file string
	}{
		{"production domain", m.Environments[0].Attrs["domain"], "prod.example.org", "/config/environment.yaml"},
		{"staging domain", m.Environments[1].Attrs["domain"], "staging.example.org", "p.hcl"},
		{"git.repo_url", m.Platform.Git.RepoURL, "https://git.example.com/a.git", "p.hcl"},
		{"git.revision", m.Platform.Git.Revision, "v2", "/config/environment.yaml"},
		{"argocd.namespace", m.Platform.ArgoCD.Namespace, "gitops", "/config/environment.yaml"},
		{"workflows.namespace", m.Platform.Workflows.Namespace, "wf", "p.hcl"},
		{"timeouts.sync", m.Defaults.Timeouts.Sync, "5m", "p.hcl"},
		{"timeouts.health", m.Defaults.Timeouts.Health, "9m", "/config/environment.yaml"},
		{"retry.limit", m.Defaults.Retry.Limit, "3", "/config/environment.yaml"},
	} {
		if got := str(c.attr); got != c.want {
			t.Errorf("%s = %s, want %s", c.what, got, c.want)
		}
		if c.attr != nil && c.attr.Range.Filename != c.file {
			t.Errorf("%s is declared in %s, want %s", c.what, c.attr.Range.Filename, c.file)
		}
	}
	if _, ok := m.Environments[0].Attrs["cluster_name"]; ok {
		t.Error("an empty cluster name was written")
	}
	if m.Defaults.Retry.Backoff != nil {
		t.Error("an empty backoff was written")
	}
	if m.Platform.ArgoCD.DeclRange.Filename != "/config/environment.yaml" {
		t.Errorf("the created argocd block is declared in %q", m.Platform.ArgoCD.DeclRange.Filename)
	}
}
