package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
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
	"github.com/platc/platc/internal/parallel"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

// exitError carries an exit code out of a command. Whatever the command
// had to say has already been printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func exitWith(code int) error {
	if code == exitcode.OK {
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

// imageRepository is set by the linker (-X main.imageRepository=...) when
// the release workflow publishes the image elsewhere than the project's
// own repository (a fork's); empty means emit/argo's ImageRepository.
var imageRepository = ""

// generator is this platc as the compiler's input: what it generates
// names this release's image, so it depends on the version too.
func generator() ir.Generator {
	return ir.Generator{Version: platcVersion(), ImageRepository: imageRepository}
}

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
				if tp, ok := r.(*parallel.Panic); ok {
					stack = tp.Stack
				}
				fmt.Fprintf(stderr, "%s\n", stack)
			}
			code = exitcode.Failure
		}
	}()
	noColor.Store(false)
	app := newApp(stdout, stderr)
	err := app.Run(context.Background(), args)
	var ee exitError
	var ue usageError
	var ec cli.ExitCoder
	switch {
	case err == nil:
		return exitcode.OK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "platc: %s\n", ue.msg)
		return exitcode.Invalid
	case errors.As(err, &ec):
		// urfave/cli's own exits (help for an unknown topic) are about
		// how platc was called.
		fmt.Fprintf(stderr, "platc: %s\n", err)
		return exitcode.Invalid
	default:
		// urfave/cli's own errors are about arguments and flags.
		fmt.Fprintf(stderr, "platc: %s\nRun 'platc help' for usage.\n", err)
		return exitcode.Invalid
	}
}

// versionLine is the one way platc states its version: platc version,
// platc --version, and the SARIF driver and the executor's User-Agent
// carry the same version string.
func versionLine() string {
	return fmt.Sprintf("platc %s (%s, %s/%s)", platcVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func init() {
	// urfave/cli keeps these hooks in package variables; platc sets them
	// once, so every command shares one version format and one notion of
	// a plausible typo (Jaro-Winkler would suggest something for any
	// input, even "--frobnicate").
	cli.VersionPrinter = func(cmd *cli.Command) { fmt.Fprintln(cmd.Root().Writer, versionLine()) }
	cli.SuggestFlag = suggestFlag
	cli.SuggestCommand = suggestCommand
}

// suggestFlag is urfave/cli's SuggestFlag: the flag of flags closest to
// provided (without dashes), as --name, or "" when none is close.
func suggestFlag(flags []cli.Flag, provided string, hideHelp bool) string {
	var names []string
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		names = append(names, f.Names()...)
	}
	if !hideHelp {
		names = append(names, "help")
	}
	slices.Sort(names)
	given := strings.TrimLeft(provided, "-")
	var s string
	if len([]rune(given)) == 1 {
		// Any one-letter flag is one edit from any other, so "-f" would
		// get "-h". A single letter is an abbreviation: suggest the one
		// long flag it starts, if exactly one does.
		var long []string
		for _, n := range names {
			if len(n) > 1 && strings.HasPrefix(n, given) {
				long = append(long, n)
			}
		}
		if len(long) == 1 {
			s = long[0]
		}
	} else {
		s = diag.Suggest(given, names)
	}
	if s == "" {
		return ""
	}
	if len(s) == 1 {
		return "-" + s
	}
	return "--" + s
}

// suggestCommand is urfave/cli's SuggestCommand, in its own message
// form ("Did you mean ...?") since it is printed as it is returned.
func suggestCommand(commands []*cli.Command, provided string) string {
	if s := closestCommand(commands, provided); s != "" {
		return fmt.Sprintf("Did you mean %q?", s)
	}
	return ""
}

func closestCommand(commands []*cli.Command, provided string) string {
	var names []string
	for _, c := range commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	slices.Sort(names)
	return diag.Suggest(provided, names)
}

func newApp(stdout, stderr io.Writer) *cli.Command {
	app := &cli.Command{
		Name:  "platc",
		Usage: "compile a Kubernetes platform in HCL into Argo and Ansible artifacts, and check it first",
		Description: "platc reads a platform (a directory of *.hcl files, or one file), proves its\n" +
			"dependency graph and the RFC-DEPLOY-0001 invariants (docs/rfc-deploy-0001.md), and\n" +
			"generates what Argo CD, Argo Workflows, Argo Events and Ansible need to deploy it in\n" +
			"order.\n\n" +
			"Flags may come before or after the path. 'platc help COMMAND' describes one command.",
		Version:   platcVersion(),
		Writer:    stdout,
		ErrWriter: stderr,
		// Did-you-mean for mistyped commands and flags (through
		// suggestFlag and suggestCommand above).
		Suggest: true,
		// platc completion bash|zsh|fish|pwsh, and the hidden
		// --generate-shell-completion the scripts call.
		EnableShellCompletion:           true,
		ConfigureShellCompletionCommand: configureCompletion,
		// platc decides exit codes itself; urfave/cli must never call
		// os.Exit.
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		OnUsageError:   onUsageError,
		Commands:       commands(),
		Flags: []cli.Flag{
			// A root flag is inherited by every command, so it may come
			// anywhere: platc --no-color lint, platc lint --no-color.
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output (also: NO_COLOR set, TERM=dumb)",
				Action: func(_ context.Context, _ *cli.Command, v bool) error { noColor.Store(v); return nil }},
		},
	}
	// urfave/cli runs the root Action for an unknown command name.
	app.Action = func(_ context.Context, cmd *cli.Command) error {
		if !cmd.Args().Present() {
			return cli.ShowRootCommandHelp(cmd)
		}
		name := cmd.Args().First()
		if s := closestCommand(cmd.Commands, name); s != "" {
			return usagef("unknown command %q. Did you mean %q? Run 'platc help' for the list of commands.", name, s)
		}
		return usagef("unknown command %q. Run 'platc help' for the list of commands.", name)
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = onUsageError
		// "platc help lint" is the help command; a "help" subcommand of
		// each command would only get in the way of completing paths.
		cmd.HideHelpCommand = true
	}
	return app
}

// onUsageError turns urfave/cli's flag errors into one line that names
// the command, suggests the nearest flag, and says where help is.
func onUsageError(_ context.Context, cmd *cli.Command, err error, isSub bool) error {
	name := "platc"
	if isSub {
		name = "platc " + cmd.Name
	}
	msg := err.Error()
	if flag, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		if bare := strings.TrimLeft(flag, "-"); len([]rune(bare)) == 1 {
			flag = "-" + bare
		} else {
			flag = "--" + bare
		}
		msg = fmt.Sprintf("%s has no flag %s.", name, flag)
		if s := cli.SuggestFlag(cmd.Flags, flag, false); s != "" {
			msg += fmt.Sprintf(" Did you mean %s?", s)
		}
	} else if flag, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		msg = fmt.Sprintf("flag %s of %s needs a value.", "--"+strings.TrimLeft(flag, "-"), name)
	}
	help := "platc help"
	if isSub {
		help += " " + cmd.Name
	}
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return usagef("%s Run '%s' for usage.", msg, help)
}

// configureCompletion makes urfave/cli's completion command visible and
// gives it platc's wording; the scripts call platc back with
// --generate-shell-completion to list commands and flags.
func configureCompletion(c *cli.Command) {
	c.Hidden = false
	c.HideHelpCommand = true
	c.Usage = "print a shell completion script: platc completion bash|zsh|fish|pwsh"
	c.ArgsUsage = "SHELL"
	c.Description = "Load it in the shell's startup file:\n\n" +
		"  bash: source <(platc completion bash)          (in ~/.bashrc; needs bash-completion)\n" +
		"  zsh:  source <(platc completion zsh)           (in ~/.zshrc, after compinit)\n" +
		"  fish: platc completion fish > ~/.config/fish/completions/platc.fish"
	c.Action = func(_ context.Context, cmd *cli.Command) error {
		shells := make([]string, 0, len(cmd.Commands))
		for _, s := range cmd.Commands {
			shells = append(shells, s.Name)
		}
		if !cmd.Args().Present() {
			return usagef("completion needs a shell: platc completion %s", strings.Join(shells, "|"))
		}
		return usagef("platc has no completion for %q; use one of: %s.", cmd.Args().First(), strings.Join(shells, ", "))
	}
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
