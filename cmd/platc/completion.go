package main

// What shell completion offers beyond urfave/cli's commands and flags:
// the values of a flag that takes one of a few, and rule names.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/lint/rules"
)

// choice is one value completion offers, with a description the shells
// show beside it ("" for none).
type choice struct{ value, about string }

// completions says what completion offers after each flag of a command
// that takes a value, by the flag's first name, and ("" key) in place of
// a positional argument. A flag or argument it does not list gets
// urfave/cli's default (flags, subcommands, then the shell's own file
// names).
type completions map[string]func() []choice

// values is a fixed list of choices without descriptions.
func values(vs ...string) func() []choice {
	return func() []choice {
		out := make([]choice, len(vs))
		for i, v := range vs {
			out[i] = choice{value: v}
		}
		return out
	}
}

// ruleChoices are the lint rules with their titles.
func ruleChoices() []choice {
	var out []choice
	for _, r := range rules.All() {
		out = append(out, choice{r.Name, r.Title()})
	}
	return out
}

// The --format values of each command, listed once for the flag's
// usage, its check and completion (lint's are lintFormats).
var (
	planFormats   = []string{"text", "json"}
	graphFormats  = []string{"dot", "mermaid", "json"}
	importFormats = []string{"hcl", "json"}
)

// severities are --fail-on's values, most severe first.
var severities = values("error", "warning", "notice")

// complete is a command's ShellComplete for c. The completion scripts
// call platc with the words before the cursor (and the word under it
// when it starts with "-"); urfave/cli keeps a trailing flag that lacks
// its value as the last argument, so that is the flag being completed.
func (c completions) complete(ctx context.Context, cmd *cli.Command) {
	args := cmd.Args().Slice()
	if n := len(args); n > 0 && strings.HasPrefix(args[n-1], "-") && args[n-1] != "-" && args[n-1] != "--" {
		name := strings.TrimLeft(args[n-1], "-")
		// "--f" is a long flag being typed, not -f: complete flags.
		long := strings.HasPrefix(args[n-1], "--")
		for _, f := range cmd.Flags {
			if long && len(name) == 1 {
				break
			}
			if fn := f.Names(); slices.Contains(fn, name) {
				if list, ok := c[fn[0]]; ok {
					printChoices(cmd, list())
					return
				}
			}
		}
	} else if list, ok := c[""]; ok {
		printChoices(cmd, list())
		return
	}
	cli.DefaultCompleteWithFlags(ctx, cmd)
}

// printChoices writes choices in the scripts' "value:description" form;
// a colon in a description is harmless (the scripts split at the first).
func printChoices(cmd *cli.Command, list []choice) {
	w := cmd.Root().Writer
	for _, c := range list {
		if c.about == "" {
			fmt.Fprintln(w, c.value)
		} else {
			fmt.Fprintf(w, "%s:%s\n", c.value, c.about)
		}
	}
}
