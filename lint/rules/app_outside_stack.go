package rules

import (
	"fmt"

	"github.com/platc/platc/lint"
)

// AppOutsideStack reports apps that belong to no stack. It is off by
// default: the language allows such apps, and small platforms have no
// use for stacks.
var AppOutsideStack = &lint.Rule{
	Name: "app-outside-stack",
	Doc: `app belongs to no stack

Stacks are the unit dependents wait for as a whole (RFC 5.1), the unit
TARGET_SCOPE=stack:<name> deploys and tears down, and the grouping platc
plan and the generated workflows show. An app outside every stack can
only be targeted on its own or with the whole platform, and readers have
to search the graph to see where it belongs.

Move the app into the stack it is deployed with. The rule is off by
default; turn it on with --enable app-outside-stack for platforms that
want every app in a stack.`,
	Severity: lint.Notice,
	Default:  false,
	Run: func(p *lint.Pass) error {
		for _, a := range p.Program.Apps {
			if a.Stack == nil {
				p.Report(lint.Issue{
					Message: fmt.Sprintf("app %q belongs to no stack", a.Name),
					Detail:  "Move the app block into the stack block it is deployed with, so stack-scoped deploys and teardowns include it.",
					Subject: a.NameRange,
				})
			}
		}
		return nil
	},
}
