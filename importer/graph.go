package importer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/internal/digraph"
)

// cycle is one cycle in the evidence and the edge commented out to break
// it.
type cycle struct {
	hops   []hop
	broken *edge
}

// hop is one step of a cycle: from depends on to, because of edges.
type hop struct {
	from, to *appOut
	edges    []*edge
}

// appIndex numbers the apps in output order.
func (im *importer) appIndex() map[*appOut]int {
	idx := make(map[*appOut]int, len(im.outApps))
	for i, a := range im.outApps {
		idx[a] = i
	}
	return idx
}

// appGraph is the app-level graph of the active edges: for each app, the
// apps it depends on, sorted.
func (im *importer) appGraph(idx map[*appOut]int) [][]int {
	adj := make([][]int, len(im.outApps))
	// mark[b] == a+1 when a → b is recorded already: no map of pairs,
	// which a stack-to-stack edge of 50 × 50 apps would fill.
	mark := make([]int, len(im.outApps))
	for a := range adj {
		for _, n := range []node{{app: im.outApps[a]}, {stack: im.outApps[a].stack}} {
			if !n.valid() {
				continue
			}
			for _, e := range im.edgesFrom(n) {
				if e.disabled {
					continue
				}
				for _, t := range e.to.apps() {
					if b := idx[t]; b != a && mark[b] != a+1 {
						mark[b] = a + 1
						adj[a] = append(adj[a], b)
					}
				}
			}
		}
		slices.Sort(adj[a])
	}
	return adj
}

// behind lists the active edges that give the app-level edge a → b.
func (im *importer) behind(a, b *appOut) []*edge {
	var out []*edge
	for _, n := range []node{{app: a}, {stack: a.stack}} {
		if !n.valid() {
			continue
		}
		for _, e := range im.edgesFrom(n) {
			if !e.disabled && slices.Contains(e.to.apps(), b) {
				out = append(out, e)
			}
		}
	}
	return out
}

// breakCycles makes the graph acyclic. While cycles remain, the weakest
// edge behind each (a wave-inferred one first, then the least
// confident, then the one found last) is disabled, and the cycle is
// recorded with every hop's evidence. Cycles in different strongly
// connected components are broken in the same round, unless an edge of
// one was disabled for another already, so large platforms do not
// rebuild the graph once per cycle.
func (im *importer) breakCycles() {
	idx := im.appIndex()
	for range len(im.edges) + 1 {
		adj := im.appGraph(idx)
		comps := digraph.Cycles(adj)
		if len(comps) == 0 {
			return
		}
		round := map[*edge]bool{}
		for _, comp := range comps {
			path := shortestCycle(adj, comp)
			c := &cycle{}
			var cands []*edge
			stale := false
			for i := range path {
				a, b := im.outApps[path[i]], im.outApps[path[(i+1)%len(path)]]
				es := im.behind(a, b)
				c.hops = append(c.hops, hop{from: a, to: b, edges: es})
				for _, e := range es {
					stale = stale || e.disabled
					if !slices.Contains(cands, e) {
						cands = append(cands, e)
					}
				}
			}
			if stale || len(cands) == 0 {
				continue // broken this round already; look again next round
			}
			weakest := slices.MinFunc(cands, func(x, y *edge) int {
				return cmp.Or(cmp.Compare(x.confidence(), y.confidence()), cmp.Compare(y.kind(), x.kind()), cmp.Compare(y.seq, x.seq))
			})
			weakest.disabled = true
			round[weakest] = true
			c.broken = weakest
			im.cycles = append(im.cycles, c)
		}
	}
}

// shortestCycle is the shortest cycle through the lowest member of a
// strongly connected component, as a list of apps starting there.
func shortestCycle(adj [][]int, comp []int) []int {
	in := map[int]bool{}
	for _, v := range comp {
		in[v] = true
	}
	hops := digraph.ShortestCycle(comp[0], func(v int) []int { return adj[v] }, func(w int) int { return w }, func(v int) bool { return in[v] })
	path := make([]int, len(hops))
	for i, h := range hops {
		path[i] = h.From
	}
	return path
}

// edgesFrom lists the edges of a node in the order depends_on is
// written: stacks first, then apps, each in output order. Lint's
// redundant-dependency reads them in this order too.
func (im *importer) edgesFrom(n node) []*edge {
	if im.from == nil {
		pos := map[node]int{}
		for i, o := range im.order {
			pos[o] = i
		}
		for i, a := range im.outApps {
			pos[node{app: a}] = len(im.order) + i
		}
		im.from = map[node][]*edge{}
		for _, e := range im.edges {
			im.from[e.from] = append(im.from[e.from], e)
		}
		for _, es := range im.from {
			slices.SortStableFunc(es, func(x, y *edge) int {
				return cmp.Or(cmp.Compare(stackFirst(x.to), stackFirst(y.to)), cmp.Compare(pos[x.to], pos[y.to]))
			})
		}
	}
	return im.from[n]
}

func stackFirst(n node) int {
	if n.stack != nil {
		return 0
	}
	return 1
}

// bitset is a set of app indexes.
type bitset []uint64

func (s bitset) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }
func (s bitset) set(i int)      { s[i/64] |= 1 << (i % 64) }
func (s bitset) or(t bitset) {
	for i := range s {
		s[i] |= t[i]
	}
}

// findRedundant marks the edges other edges already imply, the way
// platc lint's redundant-dependency rule judges depends_on: per app, an
// element is redundant when each app it adds is covered by an earlier
// element or reachable through another dependency; a stack's element
// only when that holds for every app of the stack.
func (im *importer) findRedundant() {
	idx := im.appIndex()
	cl := newClosure(im.appGraph(idx))
	stackRed := map[*edge]bool{}
	stackWhy := map[*edge]string{}
	for ai, a := range im.outApps {
		im.redundantFrom(ai, a, idx, cl, stackRed, stackWhy)
	}
	for e, red := range stackRed {
		if red {
			e.impliedBy = stackWhy[e]
		}
	}
}

// redundantFrom judges the depends_on elements that apply to app a (its
// stack's, then its own): an app's element is marked at once, a stack's
// is recorded in stackRed, redundant only if it is for every app.
func (im *importer) redundantFrom(ai int, a *appOut, idx map[*appOut]int, cl *closure, stackRed map[*edge]bool, stackWhy map[*edge]string) {
	var elems []*edge
	if a.stack != nil {
		elems = append(elems, im.active(im.edgesFrom(node{stack: a.stack}))...)
	}
	elems = append(elems, im.active(im.edgesFrom(node{app: a}))...)
	covered := make(bitset, cl.words)
	for _, e := range elems {
		var targets []int
		for _, b := range e.to.apps() {
			if b != a {
				targets = append(targets, idx[b])
			}
		}
		redundant := len(targets) > 0
		why := ""
		for _, b := range targets {
			if covered.has(b) {
				why = cmp.Or(why, fmt.Sprintf("%s already gives app.%s → app.%s", coveredBy(elems, e, im.outApps[b]), a.name, im.outApps[b].name))
				continue
			}
			if via := cl.implied(ai, b); via >= 0 {
				why = cmp.Or(why, "app."+a.name+" → "+cl.path(via, b, im.appName))
				continue
			}
			redundant = false
		}
		for _, b := range targets {
			covered.set(b)
		}
		if e.from.stack != nil {
			if v, ok := stackRed[e]; !ok || v {
				stackRed[e] = redundant
				if redundant && stackWhy[e] == "" {
					stackWhy[e] = why
				}
			}
			continue
		}
		if redundant {
			e.impliedBy = why
		}
	}
}

func (im *importer) appName(i int) string { return "app." + im.outApps[i].name }

// closure is the transitive closure of an app graph (adj[a] lists what a
// depends on): reach[a] holds every app a reaches.
type closure struct {
	adj   [][]int
	reach []bitset
	words int
}

// newClosure computes the closure in Kahn's order over "depends on",
// dependencies first.
func newClosure(adj [][]int) *closure {
	n := len(adj)
	c := &closure{adj: adj, reach: make([]bitset, n), words: (n + 63) / 64}
	indeg := make([]int, n)
	rev := make([][]int, n)
	for a, bs := range adj {
		for _, b := range bs {
			indeg[a]++
			rev[b] = append(rev[b], a)
		}
	}
	var queue []int
	for i := range n {
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		s := make(bitset, c.words)
		for _, d := range adj[v] {
			s.set(d)
			s.or(c.reach[d])
		}
		c.reach[v] = s
		for _, a := range rev[v] {
			if indeg[a]--; indeg[a] == 0 {
				queue = append(queue, a)
			}
		}
	}
	return c
}

// implied returns a dependency of a other than b through which a reaches
// b, or -1.
func (c *closure) implied(a, b int) int {
	for _, d := range c.adj[a] {
		if d != b && c.reach[d].has(b) {
			return d
		}
	}
	return -1
}

// path is a chain of dependencies from a to b, named by name.
func (c *closure) path(a, b int, name func(int) string) string {
	steps := []string{name(a)}
	for cur := a; cur != b && len(steps) <= len(c.adj); {
		next := -1
		for _, d := range c.adj[cur] {
			if d == b {
				next = d
				break
			}
			if next < 0 && c.reach[d].has(b) {
				next = d
			}
		}
		if next < 0 {
			break
		}
		steps = append(steps, name(next))
		cur = next
	}
	return strings.Join(steps, " → ")
}

// coveredBy names the earlier element that already gives an edge.
func coveredBy(elems []*edge, e *edge, b *appOut) string {
	for _, f := range elems {
		if f == e {
			break
		}
		if slices.Contains(f.to.apps(), b) {
			return f.from.String() + " → " + f.to.String()
		}
	}
	return "an earlier dependency"
}

// active drops disabled edges.
func (im *importer) active(es []*edge) []*edge {
	return slices.DeleteFunc(slices.Clone(es), func(e *edge) bool { return e.disabled })
}
