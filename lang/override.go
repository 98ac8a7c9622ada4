package lang

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Override is a set of values from outside the HCL that win over the
// platform's own: the executor's environment file (RFC 7.4) is the one
// source today. An empty field, or a nil RetryLimit, leaves the platform's
// value as written.
type Override struct {
	// Source is the file the values come from. Every attribute Override
	// writes has a range in it, so a diagnostic about one of them names
	// that file, not the HCL.
	Source string
	// Environment names the environment block whose domain and
	// cluster_name are replaced.
	Environment         string
	Domain, ClusterName string
	// GitRepository and GitRevision replace platform.git's repo_url and
	// revision; the namespaces those of platform.argocd and
	// platform.workflows.
	GitRepository, GitRevision          string
	ArgoCDNamespace, WorkflowsNamespace string
	// SyncTimeout, HealthTimeout, RetryLimit and Backoff go to the
	// defaults block, so an app, class or stack that sets its own value
	// keeps it. RetryLimit counts retries, as the language does.
	SyncTimeout, HealthTimeout string
	RetryLimit                 *int
	Backoff                    string
	// Ranges says where in Source each value is written, by the attribute
	// it replaces (the Attr constants), so that a diagnostic about a value
	// points at its line. A value without one is placed at the start of
	// Source.
	Ranges map[string]hcl.Range
}

// The keys of Override.Ranges: the attribute each value replaces, as the
// platform's HCL spells it. A source of overrides records its ranges
// under these names, so the attribute has one name from the file to the
// diagnostic.
const (
	AttrDomain             = "domain"
	AttrClusterName        = "cluster_name"
	AttrGitRepoURL         = "git.repo_url"
	AttrGitRevision        = "git.revision"
	AttrArgoCDNamespace    = "argocd.namespace"
	AttrWorkflowsNamespace = "workflows.namespace"
	AttrSyncTimeout        = "timeouts.sync"
	AttrHealthTimeout      = "timeouts.health"
	AttrRetryLimit         = "retry.limit"
	AttrRetryBackoff       = "retry.backoff"
)

// Override writes o's values into the module as literal attributes, so
// that the compiler evaluates every expression (env.domain in a Helm
// value, say) with them and the whole Program agrees with them. Blocks the
// platform does not declare are created, declared at o.Source.
func (m *Module) Override(o Override) {
	rng := hcl.Range{Filename: o.Source, Start: hcl.InitialPos, End: hcl.InitialPos}
	// lit is the literal attribute for the value at key, placed where the
	// source wrote it.
	lit := func(key, name string, v cty.Value) *hcl.Attribute {
		at := rng
		if r, ok := o.Ranges[key]; ok && r.Filename != "" {
			at = r
		}
		return staticAttr(name, v, at)
	}
	// set replaces *dst with a string literal when the override has one.
	set := func(dst **hcl.Attribute, key, name, v string) {
		if v != "" {
			*dst = lit(key, name, cty.StringVal(v))
		}
	}

	for _, e := range m.Environments {
		if e.Name != o.Environment {
			continue
		}
		if e.Attrs == nil {
			e.Attrs = hcl.Attributes{}
		}
		if o.Domain != "" {
			e.Attrs["domain"] = lit(AttrDomain, "domain", cty.StringVal(o.Domain))
		}
		if o.ClusterName != "" {
			e.Attrs["cluster_name"] = lit(AttrClusterName, "cluster_name", cty.StringVal(o.ClusterName))
		}
	}
	if pl := m.Platform; pl != nil {
		if o.GitRepository != "" || o.GitRevision != "" {
			if pl.Git == nil {
				pl.Git = &Git{DeclRange: rng}
			}
			set(&pl.Git.RepoURL, AttrGitRepoURL, "repo_url", o.GitRepository)
			set(&pl.Git.Revision, AttrGitRevision, "revision", o.GitRevision)
		}
		if o.ArgoCDNamespace != "" {
			if pl.ArgoCD == nil {
				pl.ArgoCD = &ArgoCD{DeclRange: rng}
			}
			set(&pl.ArgoCD.Namespace, AttrArgoCDNamespace, "namespace", o.ArgoCDNamespace)
		}
		if o.WorkflowsNamespace != "" {
			if pl.Workflows == nil {
				pl.Workflows = &Workflows{DeclRange: rng}
			}
			set(&pl.Workflows.Namespace, AttrWorkflowsNamespace, "namespace", o.WorkflowsNamespace)
		}
	}

	timeouts := o.SyncTimeout != "" || o.HealthTimeout != ""
	retry := o.RetryLimit != nil || o.Backoff != ""
	if !timeouts && !retry {
		return
	}
	if m.Defaults == nil {
		m.Defaults = &Defaults{DeclRange: rng}
	}
	d := m.Defaults
	if timeouts {
		if d.Timeouts == nil {
			d.Timeouts = &Timeouts{DeclRange: rng}
		}
		set(&d.Timeouts.Sync, AttrSyncTimeout, "sync", o.SyncTimeout)
		set(&d.Timeouts.Health, AttrHealthTimeout, "health", o.HealthTimeout)
	}
	if retry {
		if d.Retry == nil {
			d.Retry = &Retry{DeclRange: rng}
		}
		if o.RetryLimit != nil {
			d.Retry.Limit = lit(AttrRetryLimit, "limit", cty.NumberIntVal(int64(*o.RetryLimit)))
		}
		set(&d.Retry.Backoff, AttrRetryBackoff, "backoff", o.Backoff)
	}
}
