package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/health/suite"
	"github.com/platc/platc/internal/exitcode"
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
			cases, tdiags := suite.Cases(mod, prog, cmd.Bool("builtin"))
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
			if failed := suite.Run(cmd.Root().Writer, cases); failed > 0 {
				return exitWith(exitcode.Failure)
			}
			return nil
		},
	}
}
