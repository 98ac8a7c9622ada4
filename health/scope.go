package health

import "github.com/platc/platc/compiler/ir"

// ScopeOf is the scope health rules see in a compiled program: env.* are
// the environment's attributes plus env.name, and platform.* the same
// fields general expressions see (name, argocd, workflows, git).
func ScopeOf(p *ir.Program) Scope {
	env := map[string]any{"name": p.Env.Name}
	for _, v := range p.Env.Vars {
		if n, err := Normalize(v.Value); err == nil && n != nil {
			env[v.Name] = n
		}
	}
	pl := p.Platform
	platform := map[string]any{
		"name": pl.Name,
		"argocd": map[string]any{
			"namespace": pl.ArgoCD.Namespace,
			"project":   pl.ArgoCD.Project,
			"server":    pl.ArgoCD.Server,
			"version":   pl.ArgoCD.Version,
		},
		"workflows": map[string]any{
			"namespace":       pl.Workflows.Namespace,
			"service_account": pl.Workflows.ServiceAccount,
		},
		"git": map[string]any{
			"repo_url": pl.Git.RepoURL,
			"revision": pl.Git.Revision,
			"path":     pl.Git.Path,
		},
	}
	return Scope{Env: env, Platform: platform}
}
