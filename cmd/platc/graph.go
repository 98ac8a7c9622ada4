package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/cmd/platc/internal/planview"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/plan"
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
			formatFlag("graph format", "dot", "mermaid", "json"),
			&cli.StringFlag{Name: "by", Value: "app", Usage: "one node per `app` or per stack"},
			&cli.BoolFlag{Name: "all-edges", Usage: "draw every dependency, not only those the others do not imply"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, "dot", "mermaid", "json")
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
			g := newDrawing(prog, by == "stack", cmd.Bool("all-edges"))
			w := cmd.Root().Writer
			switch format {
			case "dot":
				g.dot(w)
			case "mermaid":
				g.mermaid(w)
			default:
				return g.json(w)
			}
			return nil
		},
	}
}

// Edges point from the dependency to the dependent (RFC 5.1), the
// direction in which a deploy flows.

// drawing is what platc graph draws: nodes, the edges chosen, and the
// critical path, decided once for every format.
type drawing struct {
	p       *ir.Program
	byStack bool
	sched   plan.Schedule
	// edges between apps (or, by stack, between stack nodes) to draw.
	edges []plan.Edge
	// critical marks the edges of the critical path, and onPath its
	// nodes.
	critical map[plan.Edge]bool
	onPath   map[int]bool
	stacks   plan.StackGraph
	total    int // every app dependency
	// bundles join a set of dependencies that several apps share (the
	// three foundation apps most apps of the example depend on) through
	// one junction, so n apps need n+k lines instead of n×k.
	bundles []bundle
	// bundled marks the edges drawn through a bundle.
	bundled map[plan.Edge]bool
}

// bundle is a set of dependencies (from) that every app of to has.
type bundle struct {
	from, to []int
}

func newDrawing(p *ir.Program, byStack, all bool) *drawing {
	d := &drawing{p: p, byStack: byStack, sched: plan.ASAP(p), critical: map[plan.Edge]bool{}, onPath: map[int]bool{}, total: p.EdgeCount()}
	if byStack {
		d.stacks = plan.ByStack(p)
		d.edges = d.stacks.Edges
		var prev = -1
		for _, st := range d.sched.CriticalPath {
			n := d.stacks.Of[st.App.Index]
			d.onPath[n] = true
			if prev >= 0 && prev != n {
				d.critical[plan.Edge{From: prev, To: n}] = true
			}
			prev = n
		}
		return d
	}
	if all {
		for _, a := range p.Apps {
			for _, dep := range a.Deps {
				d.edges = append(d.edges, plan.Edge{From: dep.App.Index, To: a.Index})
			}
		}
	} else {
		d.edges = plan.Reduce(p)
	}
	for _, st := range d.sched.CriticalPath {
		d.onPath[st.App.Index] = true
	}
	for _, e := range d.sched.CriticalEdges() {
		d.critical[e] = true
	}
	if !all {
		d.bundle()
	}
	return d
}

// bundle finds the apps whose drawn dependencies (critical hops aside)
// are the same set of two or more apps, and draws each such set once,
// into a junction. Groups come in the order of their first app.
func (d *drawing) bundle() {
	deps := make([][]int, len(d.p.Apps))
	for _, e := range d.edges {
		if !d.critical[e] {
			deps[e.To] = append(deps[e.To], e.From)
		}
	}
	index := map[string]int{}
	for _, a := range d.p.Apps {
		ds := deps[a.Index]
		if len(ds) < 2 {
			continue
		}
		slices.Sort(ds)
		key := fmt.Sprint(ds)
		i, ok := index[key]
		if !ok {
			i = len(d.bundles)
			index[key] = i
			d.bundles = append(d.bundles, bundle{from: ds})
		}
		d.bundles[i].to = append(d.bundles[i].to, a.Index)
	}
	d.bundled = map[plan.Edge]bool{}
	kept := d.bundles[:0]
	for _, b := range d.bundles {
		if len(b.to) < 2 {
			continue
		}
		kept = append(kept, b)
		for _, t := range b.to {
			for _, f := range b.from {
				d.bundled[plan.Edge{From: f, To: t}] = true
			}
		}
	}
	d.bundles = kept
}

// name is the label of node i.
func (d *drawing) name(i int) string {
	if d.byStack {
		return d.stacks.Nodes[i].Name()
	}
	return d.p.Apps[i].Name
}

// title says what the picture shows.
func (d *drawing) title() string {
	p := d.p
	if d.byStack {
		return fmt.Sprintf("%s: %s, %s; by stack; critical path in red (%s)", p.Platform.Name,
			english.Count(len(p.Stacks), "stack"), english.Count(len(p.Apps), "app"), planview.Human(d.sched.Makespan))
	}
	drawn := "every dependency"
	if len(d.edges) < d.total {
		drawn = fmt.Sprintf("%d of %d dependencies drawn, the others are implied", len(d.edges), d.total)
	}
	return fmt.Sprintf("%s: %s in %s, %s; critical path in red (%s)", p.Platform.Name,
		english.Count(len(p.Apps), "app"), english.Count(len(p.Stacks), "stack"), drawn, planview.Human(d.sched.Makespan))
}

const (
	criticalColor = "#c62828"
	edgeColor     = "#757575"
)

func (d *drawing) dot(w io.Writer) {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %q {\n", d.p.Platform.Name)
	fmt.Fprintf(&b, "  label=%q;\n  labelloc=t;\n  fontname=\"Helvetica\";\n", d.title())
	// newrank lets a wave's rank=same hold apps of different stacks.
	b.WriteString("  rankdir=LR;\n  newrank=true;\n  ranksep=0.5;\n  nodesep=0.2;\n")
	b.WriteString("  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", fontsize=14];\n")
	fmt.Fprintf(&b, "  edge [color=%q, arrowsize=0.7];\n", edgeColor)
	node := func(indent string, i int) {
		var attrs []string
		if n := d.stacks.Nodes; d.byStack && n[i].Stack != nil {
			attrs = append(attrs, fmt.Sprintf("label=%q", n[i].Stack.Name+"\n"+english.Count(len(n[i].Stack.Apps), "app")))
		}
		if d.onPath[i] {
			attrs = append(attrs, fmt.Sprintf("color=%q, penwidth=2.5, fontcolor=%q", criticalColor, criticalColor))
		}
		fmt.Fprintf(&b, "%s%q", indent, d.name(i))
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(attrs, ", "))
		}
		b.WriteString(";\n")
	}
	if d.byStack {
		for i := range d.stacks.Nodes {
			node("  ", i)
		}
	} else {
		for _, s := range d.p.Stacks {
			fmt.Fprintf(&b, "  subgraph %q {\n    label=%q;\n    style=\"rounded,filled\";\n    fillcolor=\"#f3f6fa\";\n    color=\"#b0bec5\";\n", "cluster_"+s.Name, s.Name)
			for _, a := range s.Apps {
				node("    ", a.Index)
			}
			b.WriteString("  }\n")
		}
		for _, a := range d.p.Apps {
			if a.Stack == nil {
				node("  ", a.Index)
			}
		}
		// One column per wave, headed by its number: left to right is the
		// order of the deploy.
		b.WriteString("  node [shape=plaintext, style=\"\", fontcolor=\"#546e7a\"];\n")
		for i := range d.p.Waves {
			fmt.Fprintf(&b, "  \"wave %d\";\n", i)
		}
		for i := 1; i < len(d.p.Waves); i++ {
			fmt.Fprintf(&b, "  \"wave %d\" -> \"wave %d\" [style=invis];\n", i-1, i)
		}
		for i, wave := range d.p.Waves {
			fmt.Fprintf(&b, "  { rank=same; \"wave %d\";", i)
			for _, a := range wave {
				fmt.Fprintf(&b, " %q;", a.Name)
			}
			b.WriteString(" }\n")
		}
	}
	for i, bu := range d.bundles {
		j := fmt.Sprintf("shared %d", i+1)
		fmt.Fprintf(&b, "  %q [shape=point, width=0.08, label=\"\", color=%q];\n", j, edgeColor)
		for _, f := range bu.from {
			fmt.Fprintf(&b, "  %q -> %q [arrowhead=none];\n", d.name(f), j)
		}
		for _, t := range bu.to {
			fmt.Fprintf(&b, "  %q -> %q;\n", j, d.name(t))
		}
	}
	for _, e := range d.edges {
		if d.bundled[e] {
			continue
		}
		fmt.Fprintf(&b, "  %q -> %q", d.name(e.From), d.name(e.To))
		if d.critical[e] {
			fmt.Fprintf(&b, " [color=%q, penwidth=2.5]", criticalColor)
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	io.WriteString(w, b.String())
}

func (d *drawing) mermaid(w io.Writer) {
	// Mermaid node IDs are positional; names appear only as labels, since
	// '-' in an ID can read as part of an arrow.
	id := func(i int) string { return fmt.Sprintf("n%d", i) }
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %q\n---\n", d.title())
	b.WriteString("flowchart LR\n")
	b.WriteString("  classDef critical stroke:" + criticalColor + ",stroke-width:3px,color:" + criticalColor + "\n")
	node := func(indent string, i int) {
		fmt.Fprintf(&b, "%s%s[%q]", indent, id(i), d.name(i))
		if d.onPath[i] {
			b.WriteString(":::critical")
		}
		b.WriteString("\n")
	}
	if d.byStack {
		for i := range d.stacks.Nodes {
			node("  ", i)
		}
	} else {
		for i, s := range d.p.Stacks {
			fmt.Fprintf(&b, "  subgraph s%d [%q]\n", i, s.Name)
			for _, a := range s.Apps {
				node("    ", a.Index)
			}
			b.WriteString("  end\n")
		}
		for _, a := range d.p.Apps {
			if a.Stack == nil {
				node("  ", a.Index)
			}
		}
	}
	var critical []string
	k := 0
	for i, bu := range d.bundles {
		j := fmt.Sprintf("j%d", i+1)
		fmt.Fprintf(&b, "  %s(( ))\n", j)
		for _, f := range bu.from {
			fmt.Fprintf(&b, "  %s --- %s\n", id(f), j)
			k++
		}
		for _, t := range bu.to {
			fmt.Fprintf(&b, "  %s --> %s\n", j, id(t))
			k++
		}
	}
	for _, e := range d.edges {
		if d.bundled[e] {
			continue
		}
		fmt.Fprintf(&b, "  %s --> %s\n", id(e.From), id(e.To))
		if d.critical[e] {
			critical = append(critical, fmt.Sprint(k))
		}
		k++
	}
	if len(critical) > 0 {
		fmt.Fprintf(&b, "  linkStyle %s stroke:%s,stroke-width:3px\n", strings.Join(critical, ","), criticalColor)
	}
	io.WriteString(w, b.String())
}

type graphJSON struct {
	Platform string           `json:"platform"`
	Apps     []graphAppJSON   `json:"apps"`
	Stacks   []graphStackJSON `json:"stacks"`
	// Edges is every app dependency, whatever --by and --all-edges say.
	Edges []graphEdgeJSON `json:"edges"`
	// CriticalPath is the chain of apps that sets the deploy's duration.
	CriticalPath []string `json:"critical_path"`
	// StackEdges is the stack-level graph (--by stack draws it).
	StackEdges []graphEdgeJSON `json:"stack_edges"`
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
	// Implied marks an app dependency that others already imply, left
	// out of the default drawing.
	Implied bool `json:"implied,omitempty"`
	// Critical marks a hop of the critical path.
	Critical bool `json:"critical,omitempty"`
}

func (d *drawing) json(w io.Writer) error {
	p := d.p
	out := graphJSON{Platform: p.Platform.Name, Apps: []graphAppJSON{}, Stacks: []graphStackJSON{}, Edges: []graphEdgeJSON{}, CriticalPath: []string{}, StackEdges: []graphEdgeJSON{}}
	kept := map[plan.Edge]bool{}
	for _, e := range plan.Reduce(p) {
		kept[e] = true
	}
	critical := map[plan.Edge]bool{}
	for _, e := range d.sched.CriticalEdges() {
		critical[e] = true
	}
	for _, a := range p.Apps {
		ga := graphAppJSON{Name: a.Name, Wave: a.Wave, DependsOn: []string{}}
		if a.Stack != nil {
			ga.Stack = a.Stack.Name
		}
		for _, dep := range a.Deps {
			e := plan.Edge{From: dep.App.Index, To: a.Index}
			ga.DependsOn = append(ga.DependsOn, dep.App.Name)
			out.Edges = append(out.Edges, graphEdgeJSON{From: dep.App.Name, To: a.Name, Implied: !kept[e], Critical: critical[e]})
		}
		out.Apps = append(out.Apps, ga)
	}
	for _, s := range p.Stacks {
		gs := graphStackJSON{Name: s.Name, Apps: []string{}, DependsOn: []string{}}
		for _, a := range s.Apps {
			gs.Apps = append(gs.Apps, a.Name)
		}
		for _, dep := range s.DependsOn {
			gs.DependsOn = append(gs.DependsOn, dep.Name)
		}
		out.Stacks = append(out.Stacks, gs)
	}
	for _, st := range d.sched.CriticalPath {
		out.CriticalPath = append(out.CriticalPath, st.App.Name)
	}
	sg := plan.ByStack(p)
	for _, e := range sg.Edges {
		out.StackEdges = append(out.StackEdges, graphEdgeJSON{From: sg.Nodes[e.From].Name(), To: sg.Nodes[e.To].Name()})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
