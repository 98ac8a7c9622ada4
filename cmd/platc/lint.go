package main

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/parallel"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
	"github.com/platc/platc/manifest"
)

// Where rule documentation is published, for SARIF helpUri: code
// scanning links each alert to its rule's page.
const (
	repoURL  = "https://github.com/platc/platc"
	docsBase = repoURL + "/blob/main/"
)

// lintFormats are lint's --format values: junit and checkstyle for CI
// systems that read neither JSON nor SARIF.
var lintFormats = []string{"text", "json", "sarif", "junit", "checkstyle"}

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check a platform: the compiler's checks in every environment, then the lint rules",
		ArgsUsage: "[PATH]",
		Description: "Findings at or above --fail-on exit 1; a platform the compiler rejects exits 3.\n" +
			"Silence one finding with `# platc:ignore RULE -- reason` on its line or the line above.\n" +
			"Run 'platc rules' for the rules and 'platc explain RULE' for one of them.",
		Flags: []cli.Flag{
			formatFlag("output format", lintFormats...),
			&cli.StringFlag{Name: "fail-on", Value: "warning", Usage: "lowest severity that fails the run: error, warning or notice"},
			&cli.StringFlag{Name: "scan", Usage: "also read the plain YAML manifests (and kustomizations) under `DIR` for undeclared hooks, dependency waits and sync waves"},
			&cli.StringSliceFlag{Name: "enable", Usage: "run `RULE` even though it is off by default (repeatable, or comma-separated)"},
			&cli.StringSliceFlag{Name: "disable", Usage: "do not run `RULE` (repeatable, or comma-separated)"},
		},
		Action: runLint,
		ShellComplete: completions{
			"format": values(lintFormats...), "fail-on": severities,
			"enable": ruleChoices, "disable": ruleChoices,
		}.complete,
	}
}

func runLint(_ context.Context, cmd *cli.Command) error {
	format, err := checkFormat(cmd, lintFormats...)
	if err != nil {
		return err
	}
	failOn, ok := lint.ParseSeverity(cmd.String("fail-on"))
	if !ok {
		return usagef("--fail-on %q is not a severity; use error, warning or notice.", cmd.String("fail-on"))
	}
	enabled, err := rules.Select(cmd.StringSlice("enable"), cmd.StringSlice("disable"))
	if err != nil {
		return usagef("%s", err)
	}
	path, err := pathArg(cmd)
	if err != nil {
		return err
	}
	out := lintOutput{cmd: cmd, format: format, files: map[string]*hcl.File{}}

	mod, progs, set, diags, invalid := lintInputs(cmd.String("scan"), path, out.files)
	// What build would refuse for a real limit (an object over 1 MiB, a
	// workflow over the node budget, a value too long for a pod's
	// environment), lint reports too, as the same diagnostic: the
	// emitter, which builds the objects, is the one that knows them.
	if !invalid {
		errs := make([]error, len(progs))
		parallel.Do(len(progs), func(i int) { _, errs[i] = argo.Build(progs[i]) })
		if limits := limitDiagnostics(progs, errs); len(limits) > 0 {
			diags = append(diags, limits...)
			invalid = true
		}
	}
	cfg := lint.Config{Module: mod, Programs: progs, Manifests: set, Rules: enabled, Known: rules.Names()}
	var runErr error
	if mod != nil {
		var found hcl.Diagnostics
		found, runErr = lint.Run(cfg)
		diags = append(diags, found...)
	}
	if invalid || mod == nil {
		out.ran, out.skipped = lint.Coverage(cfg)
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
	if lint.Fails(diags, failOn) {
		return exitWith(exitcode.Failure)
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
