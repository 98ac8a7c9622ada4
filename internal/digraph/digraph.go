// Package digraph holds the graph algorithms platc needs in more than
// one stage, once: strongly connected components (gonum's Tarjan) for
// the compiler's cycle report, the importer's cycle breaking and plan's
// stack graph, and the breadth-first shortest cycle the compiler and the
// importer show. Graphs are adjacency lists over nodes 0..n-1, the
// indexes each caller already has (declaration or output order), so
// results come out in that order and are deterministic.
package digraph

import (
	"slices"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// SCC returns the strongly connected components of the graph in which
// node v has an edge to each of adj[v]: every node in exactly one
// component, each component sorted, the components ordered by their
// lowest node. Self-edges are ignored (gonum's graphs refuse them); a
// caller that cares reports them itself.
func SCC(adj [][]int) [][]int {
	g := simple.NewDirectedGraph()
	for v := range adj {
		g.AddNode(simple.Node(v))
	}
	for v, ws := range adj {
		for _, w := range ws {
			if w != v {
				g.SetEdge(simple.Edge{F: simple.Node(v), T: simple.Node(w)})
			}
		}
	}
	sccs := topo.TarjanSCC(g)
	out := make([][]int, len(sccs))
	for i, comp := range sccs {
		ids := make([]int, len(comp))
		for k, n := range comp {
			ids[k] = int(n.ID())
		}
		slices.Sort(ids)
		out[i] = ids
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// Cycles is SCC without the components of one node: the knots of a
// graph, each holding at least one cycle.
func Cycles(adj [][]int) [][]int {
	return slices.DeleteFunc(SCC(adj), func(c []int) bool { return len(c) < 2 })
}

// A Hop is one edge of a path: the node it leaves and the edge, in
// whatever form the caller keeps edges (a target index, or a record of
// the declaration that made the edge).
type Hop[E any] struct {
	From int
	Edge E
}

// ShortestCycle finds a shortest cycle through start that stays on nodes
// for which in is true, by breadth-first search over out(v) in its
// order, so among cycles of one length the one found is always the same.
// It returns the cycle's hops, the first leaving start and the last
// arriving there, or nil when there is none.
func ShortestCycle[E any](start int, out func(v int) []E, to func(E) int, in func(v int) bool) []Hop[E] {
	parent := map[int]Hop[E]{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range out(v) {
			w := to(e)
			if !in(w) {
				continue
			}
			if w == start {
				hops := []Hop[E]{{From: v, Edge: e}}
				for at := v; at != start; at = parent[at].From {
					hops = append(hops, parent[at])
				}
				slices.Reverse(hops)
				return hops
			}
			if _, seen := parent[w]; !seen {
				parent[w] = Hop[E]{From: v, Edge: e}
				queue = append(queue, w)
			}
		}
	}
	return nil
}
