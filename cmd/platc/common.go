package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

// What the commands share: flags, argument checks, colour and printing
// diagnostics, and parsing and compiling the platform.

// Shared flags.
var (
	formatFlag = func(usage string, values ...string) *cli.StringFlag {
		return &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: values[0], Usage: usage + " (" + strings.Join(values, ", ") + ")"}
	}
	envFlag = &cli.StringFlag{Name: "env", Usage: "environment to compile (default: the first declared)"}
)

// checkFormat validates --format against the allowed values.
func checkFormat(cmd *cli.Command, allowed ...string) (string, error) {
	f := cmd.String("format")
	if !slices.Contains(allowed, f) {
		return "", usagef("--format %q is not supported by %s; use one of: %s.", f, cmd.Name, strings.Join(allowed, ", "))
	}
	return f, nil
}

// pathArg returns the platform path argument (default "."), rejecting
// stray arguments. Flags may come before or after it (urfave/cli v3
// parses them anywhere until "--").
func pathArg(cmd *cli.Command) (string, error) {
	args := cmd.Args().Slice()
	switch len(args) {
	case 0:
		return ".", nil
	case 1:
		return args[0], nil
	default:
		return "", usagef("%s takes one platform path (a directory or one .hcl file); got %d arguments: %s.", cmd.Name, len(args), strings.Join(quoteAll(args), " "))
	}
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// noColor is --no-color of the running command; run resets it, since
// tests call run many times in one process.
var noColor atomic.Bool

// colorFor reports whether output to w should be coloured (colorPolicy).
func colorFor(w io.Writer) bool {
	f, ok := w.(*os.File)
	return colorPolicy(ok && term.IsTerminal(int(f.Fd())), noColor.Load(), os.Getenv)
}

// colorPolicy is when platc colours its text: only on a terminal, and
// never with --no-color, when NO_COLOR is set (https://no-color.org), or
// when TERM is "dumb" (a terminal that cannot show escape sequences,
// such as Emacs' shell buffer or a CI log viewer).
func colorPolicy(terminal, flag bool, getenv func(string) string) bool {
	return terminal && !flag && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// printDiags renders diagnostics: JSON on stdout for machines, text on
// stderr for people.
func printDiags(cmd *cli.Command, mod *lang.Module, diags hcl.Diagnostics, format string) {
	var files map[string]*hcl.File
	if mod != nil {
		files = mod.Files
	}
	if format == "json" {
		_ = report.JSON(cmd.Root().Writer, diags)
		return
	}
	if len(diags) == 0 {
		return
	}
	ew := cmd.Root().ErrWriter
	_ = report.Text(ew, files, diags, report.TextOptions{Color: colorFor(ew)})
	fmt.Fprintf(ew, "%s\n", report.Summary(diags))
}

// compile parses the platform at the path argument and compiles it for
// one environment. On errors it prints them and returns exit code 3.
func compile(cmd *cli.Command, format string) (*lang.Module, *ir.Program, error) {
	path, err := pathArg(cmd)
	if err != nil {
		return nil, nil, err
	}
	mod, diags := lang.Parse(path)
	if diags.HasErrors() {
		printDiags(cmd, mod, diag.Sort(diags), format)
		return nil, nil, exitWith(exitcode.Invalid)
	}
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: cmd.String("env"), Generator: generator(), Checkout: compiler.FindCheckout(mod.Dir)})
	diags = diag.Sort(append(diags, cdiags...))
	if diags.HasErrors() {
		printDiags(cmd, mod, diags, format)
		return nil, nil, exitWith(exitcode.Invalid)
	}
	if len(diags) > 0 && format != "json" {
		printDiags(cmd, mod, diags, format)
	}
	return mod, prog, nil
}
