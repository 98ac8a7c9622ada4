package main

import (
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/internal/gitroot"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/report"
)

// lintOutput prints lint results in the chosen format. Findings, the
// compiler's included, are lint's output and go to stdout in every
// format, as tflint and kubeconform do; stderr is for platc's own
// problems (bad flags, internal errors).
type lintOutput struct {
	cmd    *cli.Command
	format string
	files  map[string]*hcl.File
	// skipped are the enabled rules that did not run because the
	// platform has errors, and ran those that ran all the same.
	skipped, ran []*lint.Rule
}

func (o lintOutput) print(diags hcl.Diagnostics) {
	w := o.cmd.Root().Writer
	var skipped *report.JSONSkipped
	if len(o.skipped) > 0 {
		skipped = &report.JSONSkipped{Reason: lint.SkipNote(o.ran, o.skipped, false), Rules: lint.Names(o.skipped)}
	}
	switch o.format {
	case "json":
		rep := report.ToJSON(diags)
		rep.Skipped = skipped
		_ = report.WriteJSON(w, rep)
	case "junit":
		_ = report.JUnit(w, diags, skipped)
	case "checkstyle":
		// Checkstyle has no place for a note about the run; the exit
		// code (3) still says the platform does not compile.
		_ = report.Checkstyle(w, diags)
	case "sarif":
		opts := report.SARIFOptions{Root: sarifRoot()}
		if len(o.skipped) > 0 {
			opts.Notifications = []string{lint.SkipNote(o.ran, o.skipped, false)}
		}
		_ = report.SARIF(w, diags, report.SARIFTool{Name: "platc", Version: platcVersion(), InformationURI: repoURL}, sarifRules(), opts)
	default:
		if len(diags) == 0 {
			return
		}
		_ = report.Text(w, o.files, diags, report.TextOptions{Color: colorFor(w)})
		if len(o.skipped) > 0 {
			fmt.Fprintf(w, "%s\n\n", lint.SkipNote(o.ran, o.skipped, true))
		}
		fmt.Fprintf(w, "%s\n", report.Summary(diags))
	}
}

// sarifRoot is the directory SARIF paths are relative to: the root of
// the Git work tree platc runs in (code scanning resolves results
// against the repository), else the working directory.
func sarifRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	root, _ := gitroot.Find(wd)
	return root
}
