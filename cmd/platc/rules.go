package main

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
	"github.com/platc/platc/report"
)

func rulesCommand() *cli.Command {
	return &cli.Command{
		Name:  "rules",
		Usage: "list the lint rules: name, severity, whether they run by default, and what they report",
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("rules takes no arguments; to read about one rule, run 'platc explain %s'", cmd.Args().First())
			}
			writeRules(cmd.Root().Writer)
			return nil
		},
	}
}

func writeRules(w io.Writer) {
	rows := [][]string{{"RULE", "SEVERITY", "DEFAULT", "TITLE"}}
	for _, r := range rules.All() {
		def := "off"
		switch {
		case r.Default && r.Scan:
			def = "on, --scan"
		case r.Default:
			def = "on"
		}
		rows = append(rows, []string{r.Name, r.Severity.String(), def, r.Title()})
	}
	widths := make([]int, 3)
	for _, row := range rows {
		for i := range widths {
			widths[i] = max(widths[i], len(row[i]))
		}
	}
	for _, row := range rows {
		fmt.Fprintf(w, "%-*s  %-*s  %-*s  %s\n", widths[0], row[0], widths[1], row[1], widths[2], row[2], row[3])
	}
}

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:          "explain",
		Usage:         "print what a lint rule reports, why, and how to fix it",
		ArgsUsage:     "RULE",
		ShellComplete: completions{"": ruleChoices}.complete,
		Action: func(_ context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			if len(args) != 1 {
				return usagef("explain takes one rule name, such as 'platc explain redundant-dependency'; 'platc rules' lists them.")
			}
			r, err := rules.Find(args[0])
			if err != nil {
				return usagef("%s", err)
			}
			w := cmd.Root().Writer
			fmt.Fprintf(w, "%s: %s\n\n%s\n\n", r.Name, r.Title(), r.Body())
			when := "On by default."
			switch {
			case !r.Default:
				when = fmt.Sprintf("Off by default; run it with --enable %s.", r.Name)
			case r.Scan:
				when = "On by default; runs when platc lint is given --scan DIR."
			}
			fmt.Fprintf(w, "Severity: %s. %s\n", r.Severity, when)
			if r != lint.InvalidSuppression {
				fmt.Fprintf(w, "Suppress one finding: # %s %s -- <reason>\n", lint.Directive, r.Name)
			}
			fmt.Fprintf(w, "Docs: %s\n", r.DocPath())
			return nil
		},
	}
}

// sarifRules describes every rule, and the compiler, for SARIF.
func sarifRules() []report.SARIFRule {
	out := []report.SARIFRule{{
		ID:      report.CompilerRuleID,
		Title:   "problem found before any lint rule runs",
		Doc:     "Parse errors, unknown references, dependency cycles and violations of the RFC's invariants, which the compiler rejects (platc compiles nothing until they are fixed, and no comment can suppress them), and manifests under --scan that platc cannot read.",
		HelpURI: docsBase + "docs/architecture.md",
		Level:   "error",
		Enabled: true,
	}}
	for _, r := range rules.All() {
		level := r.Severity.String()
		if r.Severity == lint.Notice {
			level = "note"
		}
		out = append(out, report.SARIFRule{
			ID:      r.Name,
			Title:   r.Title(),
			Doc:     r.Body(),
			HelpURI: docsBase + r.DocPath(),
			Level:   level,
			Enabled: r.Default,
		})
	}
	return out
}
