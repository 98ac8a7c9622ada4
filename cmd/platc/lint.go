package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/manifest"
	"github.com/platc/platc/lint/rules"
	"github.com/platc/platc/report"
)

// Where rule documentation is published, for SARIF helpUri: code
// scanning links each alert to its rule's page.
const (
	repoURL  = "https://github.com/platc/platc"
	docsBase = repoURL + "/blob/main/"
)

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check a platform: the compiler's checks in every environment, then the lint rules",
		ArgsUsage: "[PATH]",
		Description: "Findings at or above --fail-on exit 1; a platform the compiler rejects exits 3.\n" +
			"Silence one finding with `# platc:ignore RULE -- reason` on its line or the line above.\n" +
			"Run 'platc rules' for the rules and 'platc explain RULE' for one of them.",
		Flags: []cli.Flag{
			formatFlag("output format", "text", "json", "sarif"),
			&cli.StringFlag{Name: "fail-on", Value: "warning", Usage: "lowest severity that fails the run: error, warning or notice"},
			&cli.StringFlag{Name: "scan", Usage: "also read the plain YAML manifests (and kustomizations) under `DIR` for undeclared hooks, dependency waits and sync waves"},
			&cli.StringSliceFlag{Name: "enable", Usage: "run `RULE` even though it is off by default (repeatable, or comma-separated)"},
			&cli.StringSliceFlag{Name: "disable", Usage: "do not run `RULE` (repeatable, or comma-separated)"},
		},
		Action: runLint,
	}
}

func runLint(_ context.Context, cmd *cli.Command) error {
	format, err := checkFormat(cmd, "text", "json", "sarif")
	if err != nil {
		return err
	}
	failOn, ok := lint.ParseSeverity(cmd.String("fail-on"))
	if !ok {
		return usagef("--fail-on %q is not a severity; use error, warning or notice.", cmd.String("fail-on"))
	}
	enabled, err := selectRules(cmd.StringSlice("enable"), cmd.StringSlice("disable"))
	if err != nil {
		return err
	}
	path, err := pathArg(cmd)
	if err != nil {
		return err
	}
	out := lintOutput{cmd: cmd, format: format, files: map[string]*hcl.File{}}

	mod, progs, set, diags, invalid := lintInputs(cmd.String("scan"), path, out.files)
	cfg := lint.Config{Module: mod, Programs: progs, Manifests: set, Rules: enabled, Known: rules.Names()}
	var runErr error
	if mod != nil {
		var found hcl.Diagnostics
		found, runErr = lint.Run(cfg)
		diags = append(diags, found...)
		if invalid {
			for _, r := range enabled {
				if cfg.Runs(r) {
					out.ran = append(out.ran, r)
				}
			}
			out.skipped = lint.Skipped(cfg)
		}
	} else {
		for _, r := range enabled {
			if !r.Scan || set != nil {
				out.skipped = append(out.skipped, r)
			}
		}
	}
	diags = diag.Sort(diags)
	out.print(diags)
	if runErr != nil {
		fmt.Fprintf(cmd.Root().ErrWriter, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", runErr)
		return exitWith(exitcode.Failure)
	}
	if invalid {
		return exitWith(exitcode.Invalid)
	}
	for _, d := range diags {
		if severityOf(d) <= failOn {
			return exitWith(exitcode.Failure)
		}
	}
	return nil
}

// lintInputs parses and compiles the platform at path and, with a scan
// directory, loads its manifests, recording every file read in files
// for the diagnostics. Every problem comes out in one run: the
// compiler's errors do not stop the rules that need only the syntax
// (lint.Rule.Syntax); invalid says the others cannot run, and then progs
// is nil (and set, when the manifests have errors).
func lintInputs(scan, path string, files map[string]*hcl.File) (mod *lang.Module, progs []*ir.Program, set *manifest.Set, diags hcl.Diagnostics, invalid bool) {
	mod, diags = lang.Parse(path)
	if mod != nil {
		maps.Copy(files, mod.Files)
	}
	if !diags.HasErrors() {
		var cdiags hcl.Diagnostics
		progs, cdiags = compiler.CompileAll(mod, compiler.Options{Checkout: compiler.FindCheckout(mod.Dir)})
		diags = append(diags, cdiags...)
	}
	invalid = diags.HasErrors()
	if invalid {
		progs = nil
	}
	if scan != "" {
		var sdiags hcl.Diagnostics
		set, sdiags = manifest.Load(scan)
		if set != nil {
			maps.Copy(files, set.HCLFiles())
		}
		diags = append(diags, sdiags...)
		if sdiags.HasErrors() {
			invalid = true
			set = nil
		}
	}
	return mod, progs, set, diags, invalid
}

// severityOf is a diagnostic's lint severity: compiler warnings count as
// warnings.
func severityOf(d *hcl.Diagnostic) lint.Severity {
	switch {
	case d.Severity == hcl.DiagError:
		return lint.Error
	case diag.IsNotice(d):
		return lint.Notice
	}
	return lint.Warning
}

// selectRules returns the rules to run: the default ones, plus --enable,
// minus --disable, in registry order. Unknown names are usage errors.
func selectRules(enable, disable []string) ([]*lint.Rule, error) {
	split := func(list []string) ([]string, error) {
		var out []string
		for _, item := range list {
			for _, name := range strings.Split(item, ",") {
				name = strings.TrimSpace(name)
				if name == "" {
					continue
				}
				if rules.Lookup(name) == nil {
					if s := diag.Suggest(name, rules.Names()); s != "" {
						return nil, usagef("unknown rule %q. Did you mean %q? Run 'platc rules' for the list.", name, s)
					}
					return nil, usagef("unknown rule %q. Run 'platc rules' for the list.", name)
				}
				out = append(out, name)
			}
		}
		return out, nil
	}
	on, err := split(enable)
	if err != nil {
		return nil, err
	}
	off, err := split(disable)
	if err != nil {
		return nil, err
	}
	var out []*lint.Rule
	for _, r := range rules.All() {
		if (r.Default || slices.Contains(on, r.Name)) && !slices.Contains(off, r.Name) {
			out = append(out, r)
		}
	}
	return out, nil
}

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
	switch o.format {
	case "json":
		rep := report.ToJSON(diags)
		if len(o.skipped) > 0 {
			rep.Skipped = &report.JSONSkipped{Reason: o.skipNote(false), Rules: ruleNames(o.skipped)}
		}
		_ = report.WriteJSON(w, rep)
	case "sarif":
		opts := report.SARIFOptions{Root: sarifRoot()}
		if len(o.skipped) > 0 {
			opts.Notifications = []string{o.skipNote(false)}
		}
		_ = report.SARIF(w, diags, report.SARIFTool{Name: "platc", Version: platcVersion(), InformationURI: repoURL}, sarifRules(), opts)
	default:
		if len(diags) == 0 {
			return
		}
		_ = report.Text(w, o.files, diags, report.TextOptions{Color: colorFor(w)})
		if len(o.skipped) > 0 {
			fmt.Fprintf(w, "%s\n\n", o.skipNote(true))
		}
		fmt.Fprintf(w, "%s\n", report.Summary(diags))
	}
}

// skipNote says which rules ran and which did not, and why. Only the
// terminal, where the errors are printed above it, gets the advice to
// fix them: JSON and SARIF have no "above" (issue 25).
func (o lintOutput) skipNote(terminal bool) string {
	total := len(o.ran) + len(o.skipped)
	if len(o.ran) == 0 {
		return fmt.Sprintf("Lint ran none of its %d rules: the platform could not be read.", total)
	}
	note := fmt.Sprintf("Lint ran %d of %d rules (%s): the other %d need a platform that compiles.",
		len(o.ran), total, strings.Join(ruleNames(o.ran), ", "), len(o.skipped))
	if terminal {
		note += " Fix the errors above and run platc lint again."
	}
	return note
}

func ruleNames(rs []*lint.Rule) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

// sarifRoot is the directory SARIF paths are relative to: the root of
// the Git work tree platc runs in (code scanning resolves results
// against the repository), else the working directory.
func sarifRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	out, err := exec.Command("git", "-C", wd, "rev-parse", "--show-toplevel").Output()
	if root := strings.TrimSpace(string(out)); err == nil && root != "" {
		return root
	}
	return wd
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
		Name:      "explain",
		Usage:     "print what a lint rule reports, why, and how to fix it",
		ArgsUsage: "RULE",
		Action: func(_ context.Context, cmd *cli.Command) error {
			args := cmd.Args().Slice()
			if len(args) != 1 {
				return usagef("explain takes one rule name, such as 'platc explain redundant-dependency'; 'platc rules' lists them.")
			}
			r := rules.Lookup(args[0])
			if r == nil {
				if s := diag.Suggest(args[0], rules.Names()); s != "" {
					return usagef("unknown rule %q. Did you mean %q? Run 'platc rules' for the list.", args[0], s)
				}
				return usagef("unknown rule %q. Run 'platc rules' for the list.", args[0])
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
