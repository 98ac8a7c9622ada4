package rules

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lint"
)

// CustomBootstrapRepository reports bootstrap chart repositories other
// than the upstream ones.
var CustomBootstrapRepository = &lint.Rule{
	Name: "custom-bootstrap-repository",
	Doc: `bootstrap charts come from a repository other than upstream

The bootstrap playbooks install Argo CD, Argo Workflows, Argo Events and
the argocd-apps chart from bootstrap.argo_repo, and sealed-secrets from
bootstrap.sealed_secrets_repo, with cluster-admin rights. The charts and
the images they name run with the highest rights in the cluster, and a
Helm repository can serve different content under the same chart
version: whoever runs the repository decides what the bootstrap
installs. Upstream is ` + ir.UpstreamArgoRepo + ` and
` + ir.UpstreamSealedSecretsRepo + `, the defaults.

Leave argo_repo and sealed_secrets_repo out to install from upstream. A
mirror for an air-gapped cluster is a legitimate reason: suppress the
finding with a reason that says who runs the mirror and how it is
filled.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		b := p.Module.Platform.Bootstrap
		if b == nil {
			return nil // the defaults are upstream
		}
		for _, prog := range p.Programs {
			bs := prog.Platform.Bootstrap
			for _, c := range []struct {
				attr          *hcl.Attribute
				got, upstream string
				charts        string
			}{
				{b.ArgoRepo, bs.ArgoRepo, ir.UpstreamArgoRepo, "argo-cd, argo-workflows, argo-events and argocd-apps"},
				{b.SealedSecretsRepo, bs.SealedSecretsRepo, ir.UpstreamSealedSecretsRepo, "sealed-secrets"},
			} {
				if c.attr == nil || strings.TrimSuffix(c.got, "/") == c.upstream {
					continue
				}
				p.Report(lint.Issue{
					Message: fmt.Sprintf("bootstrap %s %q is not the upstream %q", c.attr.Name, c.got, c.upstream),
					Detail:  fmt.Sprintf("The bootstrap installs %s from this repository with cluster-admin rights, so whoever runs it decides what runs with them. Remove %s to install from upstream, or suppress with the reason if this is a mirror you control.", c.charts, c.attr.Name),
					Subject: c.attr.Expr.Range(),
				})
			}
		}
		return nil
	},
}
