package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/lang"
)

// applyEnvFile writes the environment file's values into the parsed
// platform as literal attributes, so that the compiler evaluates every
// expression (env.domain in a Helm value, say) with them and the whole
// Program agrees with the file. The attributes' ranges point at the file,
// so a diagnostic about one names environment.yaml, not the HCL.
func applyEnvFile(m *lang.Module, env string, ef *EnvFile) {
	rng := hcl.Range{Filename: ef.Path, Start: hcl.InitialPos, End: hcl.InitialPos}
	lit := func(name string, v cty.Value) *hcl.Attribute {
		return &hcl.Attribute{Name: name, Expr: hcl.StaticExpr(v, rng), Range: rng, NameRange: rng}
	}
	// field is the RFC 7.4 name, whose position the file recorded.
	str := func(name, field, v string) *hcl.Attribute {
		if r, ok := ef.Ranges[field]; ok {
			return strAttr(name, v, r)
		}
		return lit(name, cty.StringVal(v))
	}

	for _, e := range m.Environments {
		if e.Name != env {
			continue
		}
		if e.Attrs == nil {
			e.Attrs = hcl.Attributes{}
		}
		e.Attrs["domain"] = str("domain", "domain", ef.Domain)
		if ef.ClusterName != "" {
			e.Attrs["cluster_name"] = str("cluster_name", "clusterName", ef.ClusterName)
		}
	}
	if m.Platform != nil {
		pl := m.Platform
		if pl.Git == nil {
			pl.Git = &lang.Git{DeclRange: rng}
		}
		pl.Git.RepoURL = str("repo_url", "gitRepository", ef.GitRepository)
		pl.Git.Revision = str("revision", "gitRevision", ef.GitRevision)
		if ef.ArgoCDNamespace != "" {
			if pl.ArgoCD == nil {
				pl.ArgoCD = &lang.ArgoCD{DeclRange: rng}
			}
			pl.ArgoCD.Namespace = str("namespace", "argocdNamespace", ef.ArgoCDNamespace)
		}
		if ef.WorkflowsNamespace != "" {
			if pl.Workflows == nil {
				pl.Workflows = &lang.Workflows{DeclRange: rng}
			}
			pl.Workflows.Namespace = str("namespace", "workflowsNamespace", ef.WorkflowsNamespace)
		}
	}
	if ef.Timeouts == nil && ef.Retries == nil {
		return
	}
	if m.Defaults == nil {
		m.Defaults = &lang.Defaults{DeclRange: rng}
	}
	d := m.Defaults
	if t := ef.Timeouts; t != nil {
		if d.Timeouts == nil {
			d.Timeouts = &lang.Timeouts{DeclRange: rng}
		}
		if t.Sync != "" {
			d.Timeouts.Sync = strAttr("sync", t.Sync, t.SyncRange)
		}
		if t.Health != "" {
			d.Timeouts.Health = strAttr("health", t.Health, t.HealthRange)
		}
	}
	if r := ef.Retries; r != nil {
		if d.Retry == nil {
			d.Retry = &lang.Retry{DeclRange: rng}
		}
		if r.MaxAttempts != nil {
			// RFC 7.4 counts attempts; the language counts retries.
			d.Retry.Limit = &hcl.Attribute{Name: "limit", Expr: hcl.StaticExpr(cty.NumberIntVal(int64(*r.MaxAttempts-1)), r.AttemptsRange), Range: r.AttemptsRange, NameRange: r.AttemptsRange}
		}
		if r.Backoff != "" {
			d.Retry.Backoff = strAttr("backoff", r.Backoff, r.BackoffRange)
		}
	}
}
