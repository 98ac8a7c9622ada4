// Package graphview is what platc graph draws: the apps or stacks of a
// compiled program, the dependencies not implied by others (or all of
// them), the critical path and the bundles of shared dependencies,
// decided once and written as Graphviz dot, Mermaid or JSON. Every figure
// comes from package plan; this package only lays it out.
package graphview

import (
	"fmt"
	"slices"

	"github.com/platc/platc/cmd/platc/internal/planview"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/plan"
)

// Edges point from the dependency to the dependent (RFC 5.1), the
// direction in which a deploy flows.

// Drawing is what platc graph draws: nodes, the edges chosen, and the
// critical path, decided once for every format.
type Drawing struct {
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

// New decides what to draw of p: one node per app or, with byStack, per
// stack; with all, every dependency instead of the transitive reduction.
func New(p *ir.Program, byStack, all bool) *Drawing {
	d := &Drawing{p: p, byStack: byStack, sched: plan.ASAP(p), critical: map[plan.Edge]bool{}, onPath: map[int]bool{}, total: p.EdgeCount()}
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
func (d *Drawing) bundle() {
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

// waitNode is a resource node (RFC 5.1) that some app waits for: drawn
// between its app and the apps that wait for it, as the deploy runs it.
type waitNode struct {
	r          *ir.Resource
	dependents []*ir.App
}

// waits lists the resource nodes apps wait for, in the order of their
// first dependent; nil when drawing by stack, where they would sit inside
// a stack's node.
func (d *Drawing) waits() []waitNode {
	if d.byStack {
		return nil
	}
	var out []waitNode
	at := map[*ir.Resource]int{}
	for _, a := range d.p.Apps {
		for _, rd := range a.ResourceDeps {
			k, ok := at[rd.Resource]
			if !ok {
				k = len(out)
				at[rd.Resource] = k
				out = append(out, waitNode{r: rd.Resource})
			}
			out[k].dependents = append(out[k].dependents, a)
		}
	}
	return out
}

// label says what a resource node waits for.
func (w waitNode) label() string {
	r := w.r
	id := r.ResourceName
	if r.Namespace != "" {
		id = r.Namespace + "/" + id
	}
	return fmt.Sprintf("%s: resource %s\n%s %s (%s)", r.App.Name, r.Name, r.KindKey(), id, r.Wait)
}

// name is the label of node i.
func (d *Drawing) name(i int) string {
	if d.byStack {
		return d.stacks.Nodes[i].Name()
	}
	return d.p.Apps[i].Name
}

// title says what the picture shows.
func (d *Drawing) title() string {
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
	waitFill      = "#fff8e1"
)
