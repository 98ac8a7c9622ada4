package rules

import (
	"fmt"
	"slices"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/lint"
)

// UnusedHealthRule reports health blocks for kinds no app lists.
var UnusedHealthRule = &lint.Rule{
	Name: "unused-health-rule",
	Doc: `health rule for a kind no app lists in custom_resources

platc compiles a health block into Argo CD's configuration for the kinds
that apps declare in custom_resources; that list is how the platform
says which resources its apps create and must wait for (INV-7). A
health block for a kind that no app lists is either dead configuration,
a misspelt kind, or a sign that an app's custom_resources is incomplete
and the deploy does not wait for that resource.

Add the kind to custom_resources of the app that creates it, fix the
kind's spelling, or remove the health block.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		var used []string
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				for _, cr := range a.CustomResources {
					if !slices.Contains(used, cr.String()) {
						used = append(used, cr.String())
					}
				}
			}
		}
		slices.Sort(used)
		for _, h := range p.Module.Health {
			// platc always emits the Application rule (RFC 5.5).
			if slices.Contains(used, h.Kind) || h.Kind == builtin.ApplicationKind {
				continue
			}
			detail := fmt.Sprintf("No app lists %q in custom_resources, so this rule is never applied to a deploy. Add the kind to the custom_resources of the app that creates it, or remove the block.", h.Kind)
			if s := diag.Suggest(h.Kind, used); s != "" {
				detail = fmt.Sprintf("No app lists %q in custom_resources. Did you mean %q, which an app lists?", h.Kind, s)
			}
			p.Report(lint.Issue{
				Message: fmt.Sprintf("health rule for %q is used by no app", h.Kind),
				Detail:  detail,
				Subject: h.KindRange,
			})
		}
		return nil
	},
}
