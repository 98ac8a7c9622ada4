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

// secretFindings runs the hardcoded-secret rule for platc build, which
// refuses to write output while it finds anything: the generated files
// are committed, and the secret would be copied into Applications and
// workflow parameters (issue 13). Suppression comments apply as in lint.
// A rule that breaks is reported as an error too, so a build never
// passes unchecked.
func secretFindings(mod *lang.Module, progs []*ir.Program, stderr io.Writer) hcl.Diagnostics {
	if len(progs) == 0 {
		return nil
	}
	diags, err := lint.Run(lint.Config{Module: mod, Programs: progs, Rules: []*lint.Rule{rules.HardcodedSecret}, Known: rules.Names()})
	if err != nil {
		fmt.Fprintf(stderr, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", err)
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Secret check failed",
			Detail: "The hardcoded-secret rule could not run, so platc build writes nothing."})
	}
	var errs hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d)
		}
	}
	return errs
}
