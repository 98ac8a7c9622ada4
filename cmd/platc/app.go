package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/parallel"
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

// commands lists platc's commands, one file each.
func commands() []*cli.Command {
	return []*cli.Command{
		initCommand(),
		lintCommand(),
		rulesCommand(),
		explainCommand(),
		fmtCommand(),
		buildCommand(),
		planCommand(),
		graphCommand(),
		testCommand(),
		kindsCommand(),
		importCommand(),
		versionCommand(),
		deployCommand(),
		validateCommand(),
		teardownCommand(),
		snapshotCommand(),
		stepCommand(),
	}
}
