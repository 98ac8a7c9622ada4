package graphview

import (
	"fmt"
	"io"
	"strings"

	"github.com/platc/platc/internal/english"
)

func (d *Drawing) Dot(w io.Writer) {
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
	// Resource waits: a dashed detour from an app through the wait step to
	// the apps that wait for it (the edge between the apps stays drawn).
	for _, w := range d.waits() {
		n := w.r.TaskName()
		fmt.Fprintf(&b, "  %q [shape=note, style=filled, fillcolor=%q, fontcolor=%q, fontsize=11, label=%q];\n", n, waitFill, "#37474f", w.label())
		fmt.Fprintf(&b, "  %q -> %q [style=dashed];\n", w.r.App.Name, n)
		for _, a := range w.dependents {
			fmt.Fprintf(&b, "  %q -> %q [style=dashed];\n", n, a.Name)
		}
	}
	b.WriteString("}\n")
	io.WriteString(w, b.String())
}

func (d *Drawing) Mermaid(w io.Writer) {
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
	for i, w := range d.waits() {
		r := fmt.Sprintf("r%d", i)
		fmt.Fprintf(&b, "  %s[/%q/]\n", r, strings.ReplaceAll(w.label(), "\n", " "))
		fmt.Fprintf(&b, "  %s -.-> %s\n", id(w.r.App.Index), r)
		for _, a := range w.dependents {
			fmt.Fprintf(&b, "  %s -.-> %s\n", r, id(a.Index))
		}
	}
	if len(critical) > 0 {
		fmt.Fprintf(&b, "  linkStyle %s stroke:%s,stroke-width:3px\n", strings.Join(critical, ","), criticalColor)
	}
	io.WriteString(w, b.String())
}
