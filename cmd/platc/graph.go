package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/cmd/platc/internal/graphview"
)

func graphCommand() *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "print the dependency graph as Graphviz dot, Mermaid or JSON",
		ArgsUsage: "[PATH]",
		Description: "By default each app is a node, grouped in its stack, laid out left to right by wave,\n" +
			"and only the edges that are not implied by others are drawn (the transitive reduction:\n" +
			"the same order with far fewer lines). The critical path is drawn in red. --by stack\n" +
			"draws one node per stack; --all-edges draws every dependency. Render dot with\n" +
			"Graphviz: platc graph | dot -Tsvg > platform.svg",
		Flags: []cli.Flag{
			envFlag,
			formatFlag("graph format", graphFormats...),
			&cli.StringFlag{Name: "by", Value: "app", Usage: "one node per `app` or per stack"},
			&cli.BoolFlag{Name: "all-edges", Usage: "draw every dependency, not only those the others do not imply"},
		},
		ShellComplete: completions{"format": values(graphFormats...), "by": values("app", "stack")}.complete,
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, graphFormats...)
			if err != nil {
				return err
			}
			by := cmd.String("by")
			if by != "app" && by != "stack" {
				return usagef("--by %q is not supported by graph; use app or stack.", by)
			}
			diagFormat := "text"
			if format == "json" {
				diagFormat = "json"
			}
			_, prog, err := compile(cmd, diagFormat)
			if err != nil {
				return err
			}
			g := graphview.New(prog, by == "stack", cmd.Bool("all-edges"))
			w := cmd.Root().Writer
			switch format {
			case "dot":
				g.Dot(w)
			case "mermaid":
				g.Mermaid(w)
			default:
				return g.JSON(w)
			}
			return nil
		},
	}
}
