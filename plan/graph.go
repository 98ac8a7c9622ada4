package plan

import (
	"slices"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/digraph"
)

// An Edge is one dependency to draw, from the dependency to the
// dependent (the direction a deploy flows), as indexes into Program.Apps
// or StackGraph.Nodes.
type Edge struct {
	From, To int
}

// Reduce returns the transitive reduction of p's app graph: every edge
// d → a except those where a already reaches d through another of its
// direct dependencies. The graph is acyclic (the compiler proves it), so
// the reduction is unique and keeps every ordering: an app still comes
// after everything it depends on, through fewer lines. Edges come in the
// order of p.Apps and each app's Deps.
//
// A stack's depends_on adds an edge from every app of the other stack to
// every app of this one; most of them are implied, which is why an
// unreduced drawing of a 43-app platform is a hairball.
func Reduce(p *ir.Program) []Edge {
	var out []Edge
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			if p.ImpliedBy(a, d.App) == nil {
				out = append(out, Edge{From: d.App.Index, To: a.Index})
			}
		}
	}
	return out
}

// A StackNode is a stack, or an app that belongs to no stack.
type StackNode struct {
	Stack *ir.Stack
	App   *ir.App
}

// Name is the stack's or the app's name.
func (n StackNode) Name() string {
	if n.Stack != nil {
		return n.Stack.Name
	}
	return n.App.Name
}

// StackGraph is the platform drawn one node per stack: an edge S → T
// when an app of T depends on an app of S. Stacks may depend on each
// other both ways, so the graph may have cycles; edges between strongly
// connected stacks are all kept, and an edge between components is
// dropped when another path between the same components implies it.
type StackGraph struct {
	// Nodes are the stacks in Program.Stacks order, then the apps outside
	// any stack in Program.Apps order.
	Nodes []StackNode
	// Edges are sorted by From, then To.
	Edges []Edge
	// Of maps an app's index to its node.
	Of []int
}

// ByStack builds the stack-level graph of p.
func ByStack(p *ir.Program) StackGraph {
	g := StackGraph{Of: make([]int, len(p.Apps))}
	index := map[*ir.Stack]int{}
	for _, s := range p.Stacks {
		index[s] = len(g.Nodes)
		g.Nodes = append(g.Nodes, StackNode{Stack: s})
	}
	for _, a := range p.Apps {
		if a.Stack != nil {
			g.Of[a.Index] = index[a.Stack]
			continue
		}
		g.Of[a.Index] = len(g.Nodes)
		g.Nodes = append(g.Nodes, StackNode{App: a})
	}
	n := len(g.Nodes)
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			if from, to := g.Of[d.App.Index], g.Of[a.Index]; from != to {
				adj[from][to] = true
			}
		}
	}
	comp := components(adj)
	// reach over the condensation: c reaches c' through edges between
	// components.
	nc := 0
	for _, c := range comp {
		nc = max(nc, c+1)
	}
	cadj := make([][]bool, nc)
	for i := range cadj {
		cadj[i] = make([]bool, nc)
	}
	for u := range n {
		for v := range n {
			if adj[u][v] && comp[u] != comp[v] {
				cadj[comp[u]][comp[v]] = true
			}
		}
	}
	for u := range n {
		for v := range n {
			if !adj[u][v] {
				continue
			}
			cu, cv := comp[u], comp[v]
			if cu != cv && longer(cadj, cu, cv) {
				continue
			}
			g.Edges = append(g.Edges, Edge{From: u, To: v})
		}
	}
	return g
}

// longer reports whether component to is reachable from from through at
// least one other component.
func longer(adj [][]bool, from, to int) bool {
	seen := make([]bool, len(adj))
	var stack []int
	for next, ok := range adj[from] {
		if ok && next != to {
			stack = append(stack, next)
			seen[next] = true
		}
	}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c == to {
			return true
		}
		for next, ok := range adj[c] {
			if ok && !seen[next] {
				seen[next] = true
				stack = append(stack, next)
			}
		}
	}
	return false
}

// components numbers the strongly connected components of adj, so that
// nodes of one cycle share a number.
func components(adj [][]bool) []int {
	lists := make([][]int, len(adj))
	for v, row := range adj {
		for w, ok := range row {
			if ok {
				lists[v] = append(lists[v], w)
			}
		}
	}
	comp := make([]int, len(adj))
	for c, nodes := range digraph.SCC(lists) {
		for _, v := range nodes {
			comp[v] = c
		}
	}
	return comp
}

// CriticalEdges are the hops of the schedule's critical path, as app
// edges, first hop first.
func (s Schedule) CriticalEdges() []Edge {
	var out []Edge
	for i := 1; i < len(s.CriticalPath); i++ {
		out = append(out, Edge{From: s.CriticalPath[i-1].App.Index, To: s.CriticalPath[i].App.Index})
	}
	return out
}

// Contains reports whether edges holds e.
func Contains(edges []Edge, e Edge) bool { return slices.Contains(edges, e) }
