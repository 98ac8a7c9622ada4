package rules

import (
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
)

// ShortTimeoutSlowClass reports timeouts cut below what RFC 3.8.5 gives
// the slow classes.
var ShortTimeoutSlowClass = &lint.Rule{
	Name: "short-timeout-slow-class",
	Doc: `timeout shorter than its slow class allows

RFC 3.8.5 gives the classes whose resources take long to become healthy
long timeouts: storage-cluster 30m, database-cluster and vault 15m. A Ceph
cluster, a database cluster or Vault that gets less fails its deploy
while still converging, and the retries start it over.

The rule reports an app of one of these classes whose own timeouts block
sets a sync or health timeout below its class's, and a class block that
overrides one of these built-in classes with less than the RFC figure.

Remove the override, or raise it to at least the class default. If the
component is known to be fast here, suppress the finding with the
reason.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, name := range slowClasses {
				lc := p.Decls.Class(name)
				builtin, ok := builtinClass(prog, name)
				cl := classOf(prog, name)
				if lc == nil || lc.Timeouts == nil || !ok || cl == nil {
					continue
				}
				for _, t := range timeoutPairs(lc.Timeouts, cl.Timeouts, builtin) {
					if t.attr != nil && t.got < t.want {
						p.Report(lint.Issue{
							Message: fmt.Sprintf("class %q cuts the %s timeout to %s, below the RFC 3.8.5 default of %s", name, t.what, ir.FormatDuration(t.got), ir.FormatDuration(t.want)),
							Detail:  fmt.Sprintf("Every app of class %q gets this timeout. Remove the override or set at least %s.", name, ir.FormatDuration(t.want)),
							Subject: t.attr.Expr.Range(),
						})
					}
				}
			}
			for _, a := range prog.Apps {
				if !slices.Contains(slowClasses, a.Class) {
					continue
				}
				la := p.Decls.App(a.Name)
				cl := classOf(prog, a.Class)
				if la == nil || la.Timeouts == nil || cl == nil {
					continue
				}
				for _, t := range timeoutPairs(la.Timeouts, a.Timeouts, cl.Timeouts) {
					if t.attr != nil && t.got < t.want {
						p.Report(lint.Issue{
							Message: fmt.Sprintf("%s timeout %s is shorter than the %s of class %q", t.what, ir.FormatDuration(t.got), ir.FormatDuration(t.want), a.Class),
							Detail:  fmt.Sprintf("Resources of class %q take long to become healthy; with %s the deploy fails while they still converge. Remove this timeout so the class default applies, or set at least %s.", a.Class, ir.FormatDuration(t.got), ir.FormatDuration(t.want)),
							Subject: t.attr.Expr.Range(),
						})
					}
				}
			}
		}
		return nil
	},
}

type timeoutPair struct {
	what      string
	attr      *hcl.Attribute
	got, want time.Duration
}

func timeoutPairs(decl *lang.Timeouts, got, want ir.Timeouts) []timeoutPair {
	return []timeoutPair{
		{"sync", decl.Sync, got.Sync, want.Sync},
		{"health", decl.Health, got.Health, want.Health},
	}
}
