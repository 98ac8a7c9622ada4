package compiler

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// edge is one "depends on" edge from an app to one of its dependencies.
type edge struct {
	to        int
	rng       hcl.Range
	via       string
	fromStack bool
}

// structure is the environment-independent part of a compilation: the
// unique apps and stacks, their edges, and (when acyclic) a topological
// order. It is computed once and shared by every environment.
type structure struct {
	apps        []*lang.App // unique apps, declaration order
	appByName   map[string]int
	stacks      []*lang.Stack // unique stacks, declaration order
	stackByName map[string]*lang.Stack
	stackApps   map[*lang.Stack][]int // every app of a stack, declaration order
	deps        [][]edge              // deps[i]: edges of apps[i], in the order written
	order       []int                 // topological order; nil if the graph has a cycle
	wave        []int
	diags       hcl.Diagnostics
	// appSug and stackSug suggest names for unknown references; made on
	// the first one.
	appSug, stackSug *diag.Suggester
}

// suggestBudget is how many unknown names of one kind get a "did you
// mean" suggestion in one compilation. The text output shows 50
// diagnostics; a platform with thousands of unknown references (a
// generated file gone wrong) is reported quickly rather than with a
// suggestion for each.
const suggestBudget = 100

func buildStructure(m *lang.Module) *structure {
	s := &structure{
		appByName:   make(map[string]int, len(m.Apps)),
		stackByName: make(map[string]*lang.Stack, len(m.Stacks)),
		stackApps:   make(map[*lang.Stack][]int, len(m.Stacks)),
	}
	for _, st := range m.Stacks {
		if d := checkName("stack", st.Name, st.NameRange); d != nil {
			s.diags = append(s.diags, d)
		}
		if first, ok := s.stackByName[st.Name]; ok {
			s.diags = append(s.diags, duplicateName("stack", st.Name, st.NameRange, first.NameRange))
			continue
		}
		s.stackByName[st.Name] = st
		s.stacks = append(s.stacks, st)
	}
	for _, a := range m.Apps {
		if d := checkName("app", a.Name, a.NameRange); d != nil {
			s.diags = append(s.diags, d)
		}
		if i, ok := s.appByName[a.Name]; ok {
			s.diags = append(s.diags, duplicateName("app", a.Name, a.NameRange, s.apps[i].NameRange))
			continue
		}
		s.appByName[a.Name] = len(s.apps)
		if a.Stack != nil && s.stackByName[a.Stack.Name] == a.Stack {
			s.stackApps[a.Stack] = append(s.stackApps[a.Stack], len(s.apps))
		}
		s.apps = append(s.apps, a)
	}
	s.resolveEdges()
	// Cycles among the edges that did resolve are real whatever else is
	// wrong, so they are always reported.
	s.checkCycles()
	if !s.diags.HasErrors() {
		s.sort()
	}
	return s
}

// resolveEdges turns every depends_on reference into edges, reporting
// unknown names, self-dependencies and dependencies on one's own stack.
func (s *structure) resolveEdges() {
	s.deps = make([][]edge, len(s.apps))
	// Stack-level references are resolved once per stack, so an unknown
	// name there is reported once rather than once per app.
	stackTargets := make(map[*lang.Stack][][]int, len(s.stacks))
	for _, st := range s.stacks {
		targets := make([][]int, len(st.DependsOn))
		for k, ref := range st.DependsOn {
			if ref.Kind == lang.RefStack && ref.Name == st.Name {
				s.diags = append(s.diags, diag.Error(ref.Range, "Self-referential dependency",
					fmt.Sprintf("stack.%s depends on itself. Remove stack.%s from its own depends_on.", st.Name, st.Name)))
				continue
			}
			targets[k] = s.resolve(ref)
		}
		stackTargets[st] = targets
	}
	for i, a := range s.apps {
		seen := make(map[int]bool)
		add := func(j int, ref lang.Ref, fromStack bool) {
			if seen[j] {
				return
			}
			seen[j] = true
			s.deps[i] = append(s.deps[i], edge{to: j, rng: ref.Range, via: ref.String(), fromStack: fromStack})
		}
		for _, ref := range a.DependsOn {
			if ref.Kind == lang.RefApp && ref.Name == a.Name {
				s.diags = append(s.diags, diag.Error(ref.Range, "Self-referential dependency",
					fmt.Sprintf("app.%s depends on itself. Remove app.%s from its own depends_on.", a.Name, a.Name)))
				continue
			}
			if ref.Kind == lang.RefStack && a.Stack != nil && ref.Name == a.Stack.Name {
				s.diags = append(s.diags, diag.Error(ref.Range, "Dependency on own stack",
					fmt.Sprintf("app.%s is part of stack.%s, so depending on stack.%s would make it depend on itself. Depend on the apps of stack.%s it needs instead, such as app.%s.",
						a.Name, a.Stack.Name, a.Stack.Name, a.Stack.Name, s.otherApp(a.Stack, i))))
				continue
			}
			for _, j := range s.resolve(ref) {
				add(j, ref, false)
			}
		}
		if a.Stack == nil || s.stackByName[a.Stack.Name] != a.Stack {
			continue
		}
		for k, ref := range a.Stack.DependsOn {
			for _, j := range stackTargets[a.Stack][k] {
				if j == i {
					// app.X in its own stack's depends_on: the other apps of
					// the stack wait for X, X itself does not.
					continue
				}
				add(j, ref, true)
			}
		}
	}
}

// otherApp names some app of st other than apps[self], for examples in
// diagnostics.
func (s *structure) otherApp(st *lang.Stack, self int) string {
	for _, j := range s.stackApps[st] {
		if j != self {
			return s.apps[j].Name
		}
	}
	return "NAME"
}

// resolve returns the apps a reference denotes, reporting it if unknown.
func (s *structure) resolve(ref lang.Ref) []int {
	switch ref.Kind {
	case lang.RefApp:
		if j, ok := s.appByName[ref.Name]; ok {
			return []int{j}
		}
		if s.appSug == nil {
			s.appSug = diag.NewSuggester(s.appNames(), suggestBudget)
		}
		s.diags = append(s.diags, s.unknown(ref, "app", s.appSug, s.stackByName[ref.Name] != nil))
	case lang.RefStack:
		if st, ok := s.stackByName[ref.Name]; ok {
			return s.stackApps[st]
		}
		_, isApp := s.appByName[ref.Name]
		if s.stackSug == nil {
			s.stackSug = diag.NewSuggester(s.stackNames(), suggestBudget)
		}
		s.diags = append(s.diags, s.unknown(ref, "stack", s.stackSug, isApp))
	}
	return nil
}

func (s *structure) unknown(ref lang.Ref, kind string, names *diag.Suggester, otherKind bool) *hcl.Diagnostic {
	detail := fmt.Sprintf("No %s %q is declared in this platform.", kind, ref.Name)
	switch {
	case otherKind && kind == "app":
		detail += fmt.Sprintf(" There is a stack with that name: did you mean stack.%s?", ref.Name)
	case otherKind:
		detail += fmt.Sprintf(" There is an app with that name: did you mean app.%s?", ref.Name)
	default:
		if sug := names.Suggest(ref.Name); sug != "" {
			detail += fmt.Sprintf(" Did you mean %q?", sug)
		} else {
			detail += fmt.Sprintf(" Declare %s %q, or fix the name.", kind, ref.Name)
		}
	}
	return diag.Error(ref.Range, "Reference to undeclared "+kind, detail)
}

func (s *structure) appNames() []string {
	out := make([]string, len(s.apps))
	for i, a := range s.apps {
		out[i] = a.Name
	}
	slices.Sort(out)
	return out
}

func (s *structure) stackNames() []string {
	out := make([]string, len(s.stacks))
	for i, st := range s.stacks {
		out[i] = st.Name
	}
	slices.Sort(out)
	return out
}

// checkCycles reports each strongly connected component of the graph once,
// as the shortest cycle through its first-declared member, hop by hop.
func (s *structure) checkCycles() {
	g := simple.NewDirectedGraph()
	for i := range s.apps {
		g.AddNode(simple.Node(i))
	}
	for i, es := range s.deps {
		for _, e := range es {
			g.SetEdge(simple.Edge{F: simple.Node(i), T: simple.Node(e.to)})
		}
	}
	var sccs [][]int
	for _, comp := range topo.TarjanSCC(g) {
		if len(comp) < 2 {
			continue
		}
		ids := make([]int, len(comp))
		for k, n := range comp {
			ids[k] = int(n.ID())
		}
		slices.Sort(ids) // IDs are declaration indexes
		sccs = append(sccs, ids)
	}
	slices.SortFunc(sccs, func(a, b []int) int { return a[0] - b[0] })
	for _, comp := range sccs {
		s.diags = append(s.diags, s.cycleDiag(comp))
	}
}

// cycleHops finds the shortest cycle through comp[0] by breadth-first
// search over edges in the order they were written, so the result is
// deterministic.
func (s *structure) cycleHops(comp []int) []edgeFrom {
	in := make(map[int]bool, len(comp))
	for _, id := range comp {
		in[id] = true
	}
	start := comp[0]
	parent := map[int]edgeFrom{}
	queue := []int{start}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, e := range s.deps[v] {
			if !in[e.to] {
				continue
			}
			if e.to == start {
				hops := []edgeFrom{{from: v, edge: e}}
				for at := v; at != start; at = parent[at].from {
					hops = append(hops, parent[at])
				}
				slices.Reverse(hops)
				return hops
			}
			if _, seen := parent[e.to]; !seen {
				parent[e.to] = edgeFrom{from: v, edge: e}
				queue = append(queue, e.to)
			}
		}
	}
	return nil // unreachable: comp is strongly connected
}

type edgeFrom struct {
	from int
	edge edge
}

func (s *structure) cycleDiag(comp []int) *hcl.Diagnostic {
	hops := s.cycleHops(comp)
	type line struct{ from, to, at string }
	lines := make([]line, len(hops))
	wFrom, wTo := 0, 0
	related := make([]diag.Related, 0, len(hops))
	onCycle := make(map[int]bool, len(hops))
	for i, h := range hops {
		onCycle[h.from] = true
		from, to := "app."+s.apps[h.from].Name, "app."+s.apps[h.edge.to].Name
		if h.edge.via != to {
			to += " (via " + h.edge.via + ")"
		}
		lines[i] = line{from, to, diag.At(h.edge.rng)}
		wFrom, wTo = max(wFrom, len(from)), max(wTo, len(to))
		related = append(related, diag.Related{Range: h.edge.rng, Message: from + " depends on " + to})
	}
	var b strings.Builder
	b.WriteString("These apps depend on each other, so there is no order in which to deploy them:\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "  %-*s depends on %-*s  %s\n", wFrom, l.from, wTo, l.to, l.at)
	}
	var others []string
	for _, id := range comp {
		if !onCycle[id] {
			others = append(others, "app."+s.apps[id].Name)
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "These apps are caught in the same knot of dependencies: %s.\n", strings.Join(others, ", "))
	}
	b.WriteString("Remove one of these dependencies to break the cycle.")
	d := diag.Error(hops[0].edge.rng, "Dependency cycle", b.String())
	d.Extra = &diag.Extra{Related: related}
	return d
}

// sort computes the topological order (Kahn's algorithm, smallest name
// first among ready apps) and each app's wave.
func (s *structure) sort() {
	n := len(s.apps)
	indeg := make([]int, n)
	dependents := make([][]int, n)
	for i, es := range s.deps {
		indeg[i] = len(es)
		for _, e := range es {
			dependents[e.to] = append(dependents[e.to], i)
		}
	}
	ready := &nameHeap{names: s.apps}
	for i := range n {
		if indeg[i] == 0 {
			ready.ids = append(ready.ids, i)
		}
	}
	heap.Init(ready)
	s.order = make([]int, 0, n)
	for ready.Len() > 0 {
		v := heap.Pop(ready).(int)
		s.order = append(s.order, v)
		for _, d := range dependents[v] {
			indeg[d]--
			if indeg[d] == 0 {
				heap.Push(ready, d)
			}
		}
	}
	s.wave = make([]int, n)
	for _, v := range s.order {
		for _, e := range s.deps[v] {
			s.wave[v] = max(s.wave[v], s.wave[e.to]+1)
		}
	}
}

// nameHeap is a min-heap of app indexes ordered by app name.
type nameHeap struct {
	ids   []int
	names []*lang.App
}

func (h *nameHeap) Len() int           { return len(h.ids) }
func (h *nameHeap) Less(i, j int) bool { return h.names[h.ids[i]].Name < h.names[h.ids[j]].Name }
func (h *nameHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *nameHeap) Push(x any)         { h.ids = append(h.ids, x.(int)) }
func (h *nameHeap) Pop() any {
	old := h.ids
	x := old[len(old)-1]
	h.ids = old[:len(old)-1]
	return x
}
