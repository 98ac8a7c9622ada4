package main

// How platc answers a mistyped command or flag, and its completion.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/diag"
)

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
