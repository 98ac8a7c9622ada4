package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler/ir"
)

func graphCommand() *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "print the dependency graph as Graphviz dot, Mermaid or JSON",
		ArgsUsage: "[PATH]",
		Flags: []cli.Flag{
			envFlag,
			formatFlag("graph format", "dot", "mermaid", "json"),
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, "dot", "mermaid", "json")
			if err != nil {
				return err
			}
			diagFormat := "text"
			if format == "json" {
				diagFormat = "json"
			}
			_, prog, err := compile(cmd, diagFormat)
			if err != nil {
				return err
			}
			switch format {
			case "dot":
				writeDot(cmd.Root().Writer, prog)
			case "mermaid":
				writeMermaid(cmd.Root().Writer, prog)
			default:
				return writeGraphJSON(cmd.Root().Writer, prog)
			}
			return nil
		},
	}
}

// Edges point from the dependency to the dependent (RFC 5.1), the
// direction in which a deploy flows.

func writeDot(w io.Writer, p *ir.Program) {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n  rankdir=LR;\n  node [shape=box];\n", p.Platform.Name)
	for _, s := range p.Stacks {
		fmt.Fprintf(&b, "  subgraph %q {\n    label=%q;\n", "cluster_"+s.Name, s.Name)
		for _, a := range s.Apps {
			fmt.Fprintf(&b, "    %q;\n", a.Name)
		}
		b.WriteString("  }\n")
	}
	for _, a := range p.Apps {
		if a.Stack == nil {
			fmt.Fprintf(&b, "  %q;\n", a.Name)
		}
	}
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			fmt.Fprintf(&b, "  %q -> %q;\n", d.App.Name, a.Name)
		}
	}
	b.WriteString("}\n")
	io.WriteString(w, b.String())
}

func writeMermaid(w io.Writer, p *ir.Program) {
	// Mermaid node IDs are positional; names appear only as labels, since
	// '-' in an ID can read as part of an arrow.
	id := func(a *ir.App) string { return fmt.Sprintf("n%d", a.Index) }
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for i, s := range p.Stacks {
		fmt.Fprintf(&b, "  subgraph s%d [%q]\n", i, s.Name)
		for _, a := range s.Apps {
			fmt.Fprintf(&b, "    %s[%q]\n", id(a), a.Name)
		}
		b.WriteString("  end\n")
	}
	for _, a := range p.Apps {
		if a.Stack == nil {
			fmt.Fprintf(&b, "  %s[%q]\n", id(a), a.Name)
		}
	}
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			fmt.Fprintf(&b, "  %s --> %s\n", id(d.App), id(a))
		}
	}
	io.WriteString(w, b.String())
}

type graphJSON struct {
	Platform string           `json:"platform"`
	Apps     []graphAppJSON   `json:"apps"`
	Stacks   []graphStackJSON `json:"stacks"`
	Edges    []graphEdgeJSON  `json:"edges"`
}

type graphAppJSON struct {
	Name      string   `json:"name"`
	Stack     string   `json:"stack,omitempty"`
	Wave      int      `json:"wave"`
	DependsOn []string `json:"depends_on"`
}

type graphStackJSON struct {
	Name      string   `json:"name"`
	Apps      []string `json:"apps"`
	DependsOn []string `json:"depends_on"`
}

// graphEdgeJSON is one edge, from the dependency to the dependent.
type graphEdgeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func writeGraphJSON(w io.Writer, p *ir.Program) error {
	out := graphJSON{Platform: p.Platform.Name, Apps: []graphAppJSON{}, Stacks: []graphStackJSON{}, Edges: []graphEdgeJSON{}}
	for _, a := range p.Apps {
		ga := graphAppJSON{Name: a.Name, Wave: a.Wave, DependsOn: []string{}}
		if a.Stack != nil {
			ga.Stack = a.Stack.Name
		}
		for _, d := range a.Deps {
			ga.DependsOn = append(ga.DependsOn, d.App.Name)
			out.Edges = append(out.Edges, graphEdgeJSON{From: d.App.Name, To: a.Name})
		}
		out.Apps = append(out.Apps, ga)
	}
	for _, s := range p.Stacks {
		gs := graphStackJSON{Name: s.Name, Apps: []string{}, DependsOn: []string{}}
		for _, a := range s.Apps {
			gs.Apps = append(gs.Apps, a.Name)
		}
		for _, d := range s.DependsOn {
			gs.DependsOn = append(gs.DependsOn, d.Name)
		}
		out.Stacks = append(out.Stacks, gs)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
