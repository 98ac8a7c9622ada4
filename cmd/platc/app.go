package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

// Exit codes: one table for the whole binary (RFC 7.1, DESIGN §5).
const (
	exitOK      = 0 // clean / success / healthy
	exitFailure = 1 // findings, failing tests, stale output; action failed
	exitPartial = 2 // deploy partial, validate degraded, teardown orphans
	exitInvalid = 3 // invalid configuration or arguments
	exitTimeout = 4 // action exceeded its time limit
)

// exitError carries an exit code out of a command. Whatever the command
// had to say has already been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return exitError{code}
}

// usageError is a mistake in how platc was invoked.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// version is set by the linker (-X main.version=...); otherwise the module
// version from the build info is used.
var version = ""

func platcVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// run is platc: it parses args, runs one command and returns the exit
// code. It never calls os.Exit and never lets a panic escape as a stack
// trace.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", r)
			if os.Getenv("PLATC_DEBUG") != "" {
				stack := debug.Stack()
				if tp, ok := r.(*taskPanic); ok {
					stack = tp.stack
				}
				fmt.Fprintf(stderr, "%s\n", stack)
			}
			code = exitFailure
		}
	}()
	app := newApp(stdout, stderr)
	err := app.Run(args)
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "platc: %s\n", ue.msg)
		return exitInvalid
	default:
		// urfave/cli's own errors are about arguments and flags.
		fmt.Fprintf(stderr, "platc: %s\nRun 'platc --help' for usage.\n", err)
		return exitInvalid
	}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "platc",
		Usage: "compile a Kubernetes platform in HCL into Argo and Ansible artifacts, and check it first",
		Description: "platc reads a platform (a directory of *.hcl files, or one file), proves its\n" +
			"dependency graph and the RFC-DEPLOY-0001 invariants, and generates what Argo CD,\n" +
			"Argo Workflows, Argo Events and Ansible need to deploy it in order.",
		Version:         platcVersion(),
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// platc decides exit codes itself; urfave/cli must never call
		// os.Exit.
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err.Error()}
		},
		Commands: commands(),
	}
	// urfave/cli runs the root Action for an unknown command name.
	app.Action = func(c *cli.Context) error {
		if !c.Args().Present() {
			return cli.ShowAppHelp(c)
		}
		name := c.Args().First()
		var names []string
		for _, cmd := range c.App.Commands {
			names = append(names, cmd.Name)
		}
		slices.Sort(names)
		if s := diag.Suggest(name, names); s != "" {
			return usagef("unknown command %q. Did you mean %q?", name, s)
		}
		return usagef("unknown command %q. Run 'platc --help' for the list of commands.", name)
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = app.OnUsageError
	}
	return app
}

// commands lists platc's commands, one file each.
func commands() []*cli.Command {
	return []*cli.Command{
		lintCommand(),
		rulesCommand(),
		explainCommand(),
		fmtCommand(),
		buildCommand(),
		planCommand(),
		graphCommand(),
		testCommand(),
		importCommand(),
		versionCommand(),
		deployCommand(),
		validateCommand(),
		teardownCommand(),
	}
}

// Shared flags.
var (
	formatFlag = func(usage string, values ...string) *cli.StringFlag {
		return &cli.StringFlag{Name: "format", Value: values[0], Usage: usage + " (" + strings.Join(values, ", ") + ")"}
	}
	envFlag = &cli.StringFlag{Name: "env", Usage: "environment to compile (default: the first declared)"}
)

// checkFormat validates --format against the allowed values.
func checkFormat(c *cli.Context, allowed ...string) (string, error) {
	f := c.String("format")
	if !slices.Contains(allowed, f) {
		return "", usagef("--format %q is not supported by %s; use one of: %s.", f, c.Command.Name, strings.Join(allowed, ", "))
	}
	return f, nil
}

// pathArg returns the platform path argument (default "."), rejecting
// stray arguments. urfave/cli stops parsing flags at the first argument,
// so a flag after the path would otherwise be silently taken as a path.
func pathArg(c *cli.Context) (string, error) {
	args := c.Args().Slice()
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			return "", usagef("flag %s must come before the platform path: platc %s %s PATH", a, c.Command.Name, a)
		}
	}
	switch len(args) {
	case 0:
		return ".", nil
	case 1:
		return args[0], nil
	default:
		return "", usagef("%s takes one platform path (a directory or one .hcl file); got %d arguments.", c.Command.Name, len(args))
	}
}

// colorFor reports whether output to w should be coloured: only on a
// terminal, and never when NO_COLOR is set (https://no-color.org).
func colorFor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printDiags renders diagnostics: JSON on stdout for machines, text on
// stderr for people.
func printDiags(c *cli.Context, mod *lang.Module, diags hcl.Diagnostics, format string) {
	var files map[string]*hcl.File
	if mod != nil {
		files = mod.Files
	}
	if format == "json" {
		_ = report.JSON(c.App.Writer, diags)
		return
	}
	if len(diags) == 0 {
		return
	}
	_ = report.Text(c.App.ErrWriter, files, diags, report.TextOptions{Color: colorFor(c.App.ErrWriter)})
	fmt.Fprintf(c.App.ErrWriter, "%s\n", report.Summary(diags))
}

// compile parses the platform at the path argument and compiles it for
// one environment. On errors it prints them and returns exit code 3.
func compile(c *cli.Context, format string) (*lang.Module, *ir.Program, error) {
	path, err := pathArg(c)
	if err != nil {
		return nil, nil, err
	}
	mod, diags := lang.Parse(path)
	if diags.HasErrors() {
		printDiags(c, mod, diag.Sort(diags), format)
		return nil, nil, exitWith(exitInvalid)
	}
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: c.String("env")})
	diags = diag.Sort(append(diags, cdiags...))
	if diags.HasErrors() {
		printDiags(c, mod, diags, format)
		return nil, nil, exitWith(exitInvalid)
	}
	if len(diags) > 0 && format != "json" {
		printDiags(c, mod, diags, format)
	}
	return mod, prog, nil
}
