package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
)

func testCommand() *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "run the test blocks of the platform's health rules against their sample objects",
		ArgsUsage: "[PATH]",
		Description: "Each test evaluates its rule on the object file it names, with platc's own evaluator\n" +
			"and with the compiled Lua in a VM set up as Argo CD sets it up, and compares the status\n" +
			"(and message, with want_message) with what the test wants. Exit 1 if a test fails,\n" +
			"3 if the platform or a test is invalid.",
		Flags: []cli.Flag{
			envFlag,
			&cli.BoolFlag{Name: "builtin", Usage: "also run the samples of the built-in rules this platform uses"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			path, err := pathArg(cmd)
			if err != nil {
				return err
			}
			mod, diags := lang.Parse(path)
			if diags.HasErrors() {
				printDiags(cmd, mod, diag.Sort(diags), "text")
				return exitWith(exitcode.Invalid)
			}
			// Samples are checked even when the platform has errors, so
			// every problem is reported in one run.
			prog, cdiags := compiler.Compile(mod, compiler.Options{Env: cmd.String("env"), Generator: generator(), Checkout: compiler.FindCheckout(mod.Dir)})
			cases, tdiags := testCases(mod, prog, cmd.Bool("builtin"))
			diags = diag.Sort(append(append(diags, cdiags...), tdiags...))
			if len(diags) > 0 {
				printDiags(cmd, mod, diags, "text")
			}
			if diags.HasErrors() {
				return exitWith(exitcode.Invalid)
			}
			if len(cases) == 0 {
				fmt.Fprintln(cmd.Root().Writer, "no health rule tests to run")
				return nil
			}
			if failed := runTests(cmd.Root().Writer, cases); failed > 0 {
				return exitWith(exitcode.Failure)
			}
			return nil
		},
	}
}

// testCase is one test with the rule compiled for its scope and the way
// to read its sample.
type testCase struct {
	test    *health.Test
	rule    *health.Rule
	builtin bool
	load    func(string) ([]byte, error)
}

// testCases checks every test before any runs: an unreadable or invalid
// sample, or a rule that does not compile under a test's env, is an
// invalid configuration (exit 3), not a failing test.
// prog is nil when the platform has errors; then only the samples are
// checked.
func testCases(mod *lang.Module, prog *ir.Program, withBuiltin bool) ([]testCase, hcl.Diagnostics) {
	var scope health.Scope
	if prog != nil {
		scope = health.Scope(prog.Scope)
	}
	var cases []testCase
	var diags hcl.Diagnostics
	add := func(h *lang.Health, isBuiltin bool, files map[string]*hcl.File, load func(string) ([]byte, error)) {
		tests, ds := health.Tests(h)
		diags = append(diags, ds...)
		origin := "the platform's health rule"
		if isBuiltin {
			origin = "platc's built-in library"
		}
		for _, t := range tests {
			b, err := load(t.Object)
			if err == nil {
				_, err = health.DecodeObject(b, t.Object)
			}
			if err != nil {
				diags = append(diags, diag.Error(t.Block.Object.Expr.Range(), "Invalid test object",
					fmt.Sprintf("Test %q cannot use %s: %v. object is a YAML or JSON file holding one Kubernetes object, relative to the file that declares the test.", t.Name, t.Object, safefile.Unwrap(err))))
				continue
			}
			if prog == nil {
				continue
			}
			r, ds := health.Compile(h, scope.WithEnv(t.Env), health.Options{Origin: origin, Files: files})
			if ds.HasErrors() {
				at := t.Block.DeclRange
				if t.Block.Env != nil {
					at = t.Block.Env.Expr.Range()
				}
				diags = append(diags, diag.Error(at, "Rule does not compile for this test",
					fmt.Sprintf("With the env values of test %q, the rule for %s does not compile: %s. Fix the test's env or the rule.", t.Name, h.Kind, ds.Error())))
				continue
			}
			cases = append(cases, testCase{test: t, rule: r, builtin: isBuiltin, load: load})
		}
	}
	// Sample objects are read only from regular files inside the
	// platform directory, bounded: a test object of /dev/zero, a FIFO or
	// ../../etc/shadow is an error, never a hang or a leak.
	inside := func(p string) ([]byte, error) {
		rel, err := filepath.Rel(mod.Dir, filepath.FromSlash(p))
		if err != nil {
			return nil, err
		}
		return safefile.ReadInside(mod.Dir, filepath.ToSlash(rel), health.MaxObjectSize)
	}
	for _, h := range mod.Health {
		add(h, false, mod.Files, inside)
	}
	if withBuiltin && prog != nil {
		for _, hr := range prog.Health {
			if hr.Origin != ir.HealthBuiltIn {
				continue
			}
			if h := builtin.Rule(hr.Key()); h != nil {
				add(h, true, builtin.Files(), builtin.ReadFile)
			}
		}
	}
	return cases, diags
}

// runTests runs the cases in order, prints a line for each and a summary,
// and returns the number that failed.
func runTests(w io.Writer, cases []testCase) int {
	failed := 0
	for _, tc := range cases {
		o := health.Run(tc.test, tc.rule, tc.load)
		name := tc.test.Kind + " " + tc.test.Name
		if tc.builtin {
			name = "built-in " + name
		}
		if o.Pass {
			fmt.Fprintf(w, "ok    %s: %s\n", name, o.Got)
			continue
		}
		failed++
		at := diag.At(tc.test.Block.DeclRange)
		if tc.builtin {
			at = tc.test.Object
		}
		fmt.Fprintf(w, "FAIL  %s (%s): %s\n", name, at, o.Why)
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", len(cases)-failed, failed)
	return failed
}
