package rules

import (
	"fmt"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
)

// EmptyStack reports stacks without apps.
var EmptyStack = &lint.Rule{
	Name: "empty-stack",
	Doc: `stack has no apps

A stack without apps deploys nothing, and a depends_on on it orders
nothing: every app of the stack is an empty set, so an app that depends
on the stack starts without waiting for anything. That is almost always
a mistake, such as apps declared at top level that were meant to be
inside the stack.

Move the apps that belong to the stack into its block, or remove the
stack and the references to it.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, st := range p.Program.Stacks {
			if len(st.Apps) > 0 {
				continue
			}
			var related []diag.Related
			refer := func(refs []lang.Ref, who string) {
				for _, r := range refs {
					if r.Kind == lang.RefStack && r.Name == st.Name {
						related = append(related, diag.Related{Range: r.Range, Message: who + " depends on the empty stack and waits for nothing"})
					}
				}
			}
			for _, ls := range p.Module.Stacks {
				refer(ls.DependsOn, "stack "+quote(ls.Name))
			}
			for _, la := range p.Module.Apps {
				refer(la.DependsOn, "app "+quote(la.Name))
			}
			detail := "Move the apps that belong to it into its block, or remove it."
			switch n := len(related); {
			case n == 1:
				detail = "One depends_on refers to it and orders nothing. " + detail
			case n > 1:
				detail = fmt.Sprintf("%d depends_on refer to it and order nothing. %s", n, detail)
			}
			p.Report(lint.Issue{
				Message: fmt.Sprintf("stack %q has no apps", st.Name),
				Detail:  detail,
				Subject: st.NameRange,
				Related: related,
			})
		}
		return nil
	},
}
