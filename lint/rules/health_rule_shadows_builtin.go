package rules

import (
	"fmt"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lint"
)

// HealthRuleShadowsBuiltin reports health blocks that replace a check
// platc or Argo CD already has for the kind.
var HealthRuleShadowsBuiltin = &lint.Rule{
	Name: "health-rule-shadows-builtin",
	Doc: `health rule replaces a built-in check for the same kind

For many kinds a health check already exists: Argo CD ships its own for
cert-manager, External Secrets, Strimzi, Ceph and others, and platc has
a built-in library for the kinds Argo CD lacks or gets wrong. A health
block for such a kind replaces that check for every app. The built-in
one encodes conditions learnt the hard way (a CephCluster must not fail
on HEALTH_WARN while it comes up, a postgresql is only ready when every
replica is); a hand-written replacement often misses them, and it stops
getting fixes when platc or Argo CD improve theirs.

Remove the health block to use the existing check. If the replacement is
deliberate, keep it and suppress the finding with the reason. platc kinds
lists the kinds that have a check already.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, h := range prog.Health {
				if h.Origin != ir.HealthUser {
					continue
				}
				key := h.Key()
				var by string
				switch h.Replaces {
				case ir.HealthBuiltIn:
					by = "platc's built-in health rule"
				case ir.HealthArgoCD:
					by = "the health check Argo CD ships"
				default:
					continue
				}
				lh := p.Decls.Health(key)
				if lh == nil {
					continue
				}
				var related []diag.Related
				for _, a := range prog.Apps {
					for _, cr := range a.CustomResources {
						if cr.String() == key {
							related = append(related, diag.Related{Range: cr.Range, Message: fmt.Sprintf("app %q gets the replacement", a.Name)})
						}
					}
				}
				p.Report(lint.Issue{
					Message: fmt.Sprintf("health rule for %q replaces %s", key, by),
					Detail:  fmt.Sprintf("Every app that lists %q is judged by this block instead. Remove the block to use the existing check, or suppress this finding saying why the replacement is needed.", key),
					Subject: lh.KindRange,
					Related: related,
				})
			}
		}
		return nil
	},
}
