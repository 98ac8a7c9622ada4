package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/parallel"
	"github.com/platc/platc/lang"
)

func buildCommand() *cli.Command {
	return &cli.Command{
		Name:      "build",
		Usage:     "generate every environment's output into <out>/<env>/ (or, with --check, report what is stale)",
		ArgsUsage: "[PATH]",
		Description: "The output directory is --out, or else platform.git.path (default \"generated\") in the\n" +
			"Git work tree that holds the platform (the current directory outside Git). Each\n" +
			"environment's directory is replaced in one atomic step; only files that start with\n" +
			"platc's \"Code generated\" header are ever written or removed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "env", Usage: "build only this environment (default: every environment)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output directory (default: platform.git.path in the platform's Git work tree)"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 with a per-file summary when the output on disk is stale"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			path, err := pathArg(cmd)
			if err != nil {
				return err
			}
			mod, progs, err := compileForBuild(cmd, path)
			if err != nil {
				return err
			}
			outs, err := outputs(cmd, mod, path, progs)
			if err != nil {
				return err
			}
			if err := checkLinks(cmd, mod, outs); err != nil {
				return err
			}
			if cmd.Bool("check") {
				return check(cmd.Root().Writer, cmd.Root().ErrWriter, outs)
			}
			return writeOutputs(cmd.Root().Writer, cmd.Root().ErrWriter, outs)
		},
	}
}

// compileForBuild compiles every environment, or only --env, printing
// diagnostics; errors end the build with exit 3 before anything is
// generated.
func compileForBuild(cmd *cli.Command, path string) (*lang.Module, []*ir.Program, error) {
	mod, diags := lang.Parse(path)
	var progs []*ir.Program
	if !diags.HasErrors() {
		var cdiags hcl.Diagnostics
		if env := cmd.String("env"); env != "" {
			var p *ir.Program
			p, cdiags = compiler.Compile(mod, compiler.Options{Env: env, Generator: generator(), Checkout: compiler.FindCheckout(mod.Dir)})
			if p != nil {
				progs = []*ir.Program{p}
			}
		} else {
			progs, cdiags = compiler.CompileAll(mod, compiler.Options{Generator: generator(), Checkout: compiler.FindCheckout(mod.Dir)})
		}
		diags = append(diags, cdiags...)
	}
	var findings hcl.Diagnostics
	if !diags.HasErrors() {
		findings = blockingFindings(mod, progs, cmd.Root().ErrWriter)
		diags = append(diags, findings...)
	}
	if !diags.HasErrors() {
		diags = append(diags, outPathDiags(cmd.String("out"), path, mod, progs)...)
	}
	diags = diag.Sort(diags)
	printDiags(cmd, mod, diags, "text")
	switch {
	case findings.HasErrors():
		fmt.Fprintf(cmd.Root().ErrWriter, "platc: %s that platc lint reports as errors; nothing was written.\n", blockedBy(findings))
		return nil, nil, exitWith(exitcode.Failure)
	case diags.HasErrors():
		return nil, nil, exitWith(exitcode.Invalid)
	}
	return mod, progs, nil
}

// blockedBy says what stopped a build, naming the rules.
func blockedBy(findings hcl.Diagnostics) string {
	var names []string
	seen := map[string]bool{}
	for _, d := range findings {
		if e := diag.ExtraOf(d); e != nil && e.Rule != "" && !seen[e.Rule] {
			seen[e.Rule] = true
			names = append(names, e.Rule)
		}
	}
	if len(names) == 0 {
		return "the platform has findings"
	}
	slices.Sort(names)
	return fmt.Sprintf("the platform has findings (%s)", english.List(names))
}

// output is one environment's generated files and where they go.
type output struct {
	env string
	dir string
	// root is the directory dir is under that the user chose: --out, or
	// the Git work tree (git.path and the environment come from HCL).
	root  string
	files []emit.File
}

// outputs runs every emitter for every program. The emitters only read
// the programs, so they run concurrently, one per CPU; the files are
// sorted afterwards and the first failure in order is the one reported,
// so the result does not depend on scheduling.
func outputs(cmd *cli.Command, mod *lang.Module, path string, progs []*ir.Program) ([]output, error) {
	outs := make([]output, len(progs))
	for i, p := range progs {
		dir, err := outDir(cmd.String("out"), path, p)
		if err != nil {
			return nil, err
		}
		root := cmd.String("out")
		if root == "" {
			root = repoRoot(path)
		}
		outs[i] = output{env: p.Env.Name, dir: dir, root: root}
	}
	// A default step image that is not published is worth a warning, not
	// a failure: the output is still what this platc generates.
	warned := map[string]bool{}
	for _, p := range progs {
		if _, w := argo.StepImage(p); w != "" && !warned[w] {
			warned[w] = true
			fmt.Fprintf(cmd.Root().ErrWriter, "platc: warning: %s.\n", w)
		}
	}
	errs := make([]error, len(progs))
	parallel.Do(len(progs), func(i int) { outs[i].files, errs[i] = all.Emit(progs[i]) })
	// A platform past a real limit (an object over 1 MiB, a workflow over
	// the node budget) is the user's to fix: the emitter that knows the
	// sizes reports it, and it is shown as a diagnostic at the platform
	// block, the exit code of invalid input.
	if limits := limitDiagnostics(progs, errs); len(limits) > 0 {
		printDiags(cmd, mod, diag.Sort(limits), "text")
		return nil, exitWith(exitcode.Invalid)
	}
	for _, err := range errs {
		if err != nil {
			fmt.Fprintf(cmd.Root().ErrWriter, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", err)
			return nil, exitWith(exitcode.Failure)
		}
	}
	return outs, nil
}

// limitDiagnostics are the emitter's LimitErrors among errs (errs[i] for
// progs[i]) as diagnostics at each platform block: what platc build
// refuses for a real limit, and platc lint reports the same way.
func limitDiagnostics(progs []*ir.Program, errs []error) hcl.Diagnostics {
	var out hcl.Diagnostics
	for i, err := range errs {
		var le *argo.LimitError
		if errors.As(err, &le) {
			out = append(out, diag.Error(progs[i].Platform.DeclRange, le.Summary, le.Detail))
		}
	}
	return out
}
