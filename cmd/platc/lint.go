package main

import (
	"github.com/urfave/cli/v2"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

func lintCommand() *cli.Command {
	return &cli.Command{
		Name:      "lint",
		Usage:     "check a platform: syntax, references, cycles and the RFC invariants, in every environment",
		ArgsUsage: "[PATH]",
		Flags: []cli.Flag{
			formatFlag("output format", "text", "json"),
		},
		Action: func(c *cli.Context) error {
			format, err := checkFormat(c, "text", "json")
			if err != nil {
				return err
			}
			path, err := pathArg(c)
			if err != nil {
				return err
			}
			mod, diags := lang.Parse(path)
			if !diags.HasErrors() {
				_, cdiags := compiler.CompileAll(mod)
				diags = append(diags, cdiags...)
			}
			diags = diag.Sort(diags)
			printDiags(c, mod, diags, format)
			switch {
			case diags.HasErrors():
				return exitWith(exitInvalid)
			case len(diags) > 0:
				return exitWith(exitFailure)
			}
			return nil
		},
	}
}
