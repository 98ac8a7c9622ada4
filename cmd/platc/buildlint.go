package main

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
)

// buildRules are the lint rules whose findings stop platc build
// (lint.Rule.StopsBuild). What lint calls an error is a mistake in the
// output, not a matter of taste: a chart range or "latest" as a
// targetRevision (issue 25), a credential that would be committed
// (issue 13), a hook manifest that does not match its declaration.
func buildRules() []*lint.Rule {
	var out []*lint.Rule
	for _, r := range rules.All() {
		if r.StopsBuild() {
			out = append(out, r)
		}
	}
	return out
}

// blockingFindings runs buildRules for platc build, which refuses to
// write output while they find anything. Suppression comments apply as
// in lint (`# platc:ignore RULE -- reason`). A rule that breaks is
// reported as an error too, so a build never passes unchecked.
func blockingFindings(mod *lang.Module, progs []*ir.Program, stderr io.Writer) hcl.Diagnostics {
	if len(progs) == 0 {
		return nil
	}
	diags, err := lint.Run(lint.Config{Module: mod, Programs: progs, Rules: buildRules(), Known: rules.Names()})
	if err != nil {
		fmt.Fprintf(stderr, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", err)
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Lint check failed",
			Detail: "A lint rule could not run, so platc build writes nothing."})
	}
	var errs hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	return errs
}
