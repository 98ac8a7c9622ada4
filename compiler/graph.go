package compiler

import (
	"container/heap"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/digraph"
	"github.com/platc/platc/lang"
)

// edge is one "depends on" edge from an app to one of its dependencies.
type edge struct {
	to        int
	rng       hcl.Range
	via       string
	fromStack bool
	// alsoDeclared says another reference makes the same edge (an app
	// naming a dependency its stack names too), so removing rng alone
	// would not remove it.
	alsoDeclared bool
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
	// resRefs[i] are the app.X.resource.R references of apps[i] whose app
	// resolved, in the order written; each also made an edge to X.
	resRefs [][]lang.Ref
	order   []int // topological order; nil if the graph has a cycle
	wave    []int
	diags   hcl.Diagnostics
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
	s.resRefs = make([][]lang.Ref, len(s.apps))
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
			if ref.Resource != "" {
				// A wait belongs to the app that needs the resource; a stack
				// has no task of its own to put it before.
				s.diags = append(s.diags, diag.Error(ref.Range, "Resource dependency on a stack",
					fmt.Sprintf("stack.%s cannot depend on %s: a resource dependency belongs to the app that needs the resource. Move it to the depends_on of each app of stack.%s that needs it, or depend on app.%s as a whole here.", st.Name, ref, st.Name, ref.Name)))
				continue
			}
			targets[k] = s.resolve(ref)
		}
		stackTargets[st] = targets
	}
	for i, a := range s.apps {
		seen := make(map[int]int) // dependency → index in s.deps[i]
		add := func(j int, ref lang.Ref, fromStack bool) {
			if k, ok := seen[j]; ok {
				if s.deps[i][k].rng != ref.Range {
					s.deps[i][k].alsoDeclared = true
				}
				return
			}
			seen[j] = len(s.deps[i])
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
				if ref.Resource != "" {
					s.resRefs[i] = append(s.resRefs[i], ref)
				}
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
	adj := make([][]int, len(s.deps))
	for i, es := range s.deps {
		for _, e := range es {
			adj[i] = append(adj[i], e.to)
		}
	}
	// IDs are declaration indexes, so each knot comes sorted by
	// declaration, the knots by their first member.
	for _, comp := range digraph.Cycles(adj) {
		s.diags = append(s.diags, s.cycleDiag(comp))
	}
}

// A cycle report leads to the dependency to cut (issue 25). A knot of
// apps (a strongly connected component) may hold many cycles; the one
// through its first-declared member is not necessarily the one the user
// just closed, and advice to "remove one of these" on an arbitrary cycle
// sends them the wrong way. So the report names the whole component,
// shows its shortest cycles, and lists the declarations every cycle goes
// through: cutting any one of those breaks them all, and the first is
// the diagnostic's subject. A declaration is what the user wrote: a
// stack's depends_on creates an edge from each of its apps, and cutting
// it removes them all, so edges are grouped by the reference that made
// them.

// maxCycleEdges bounds the work of the shared-declaration search, which
// checks the component once per declaration. A knot larger than this is
// reported without the list; it is a generated file gone wrong, not a
// dependency added by hand.
const maxCycleEdges = 4096

// maxShownCycles is how many distinct shortest cycles a report lists.
const maxShownCycles = 3

// cycleSearchBudget bounds the breadth-first searches for short cycles,
// in visited apps plus edges. Within it every member is a start, so the
// cycles shown are the shortest; a knot too large for that (thousands of
// apps, a generated file gone wrong) is searched from its first members
// only, and the cycles shown are short rather than shortest.
const cycleSearchBudget = 2_000_000

type edgeFrom struct {
	from int
	edge edge
}

// cycleEdges returns the edges between members of comp, members in
// declaration order and each one's edges in the order written.
func (s *structure) cycleEdges(comp []int, in map[int]bool) []edgeFrom {
	var out []edgeFrom
	for _, v := range comp {
		for _, e := range s.deps[v] {
			if in[e.to] {
				out = append(out, edgeFrom{from: v, edge: e})
			}
		}
	}
	return out
}

// shortestCycleThrough finds the shortest cycle through start by
// breadth-first search over edges in the order they were written, so the
// result is deterministic.
func (s *structure) shortestCycleThrough(start int, in map[int]bool) []edgeFrom {
	hops := digraph.ShortestCycle(start, func(v int) []edge { return s.deps[v] }, func(e edge) int { return e.to }, func(v int) bool { return in[v] })
	out := make([]edgeFrom, len(hops))
	for i, h := range hops {
		out[i] = edgeFrom{from: h.From, edge: h.Edge}
	}
	return out
}

// shortestCycles returns the distinct cycles of the component's shortest
// length, at most maxShownCycles, each starting at its first-declared
// member, ordered by their members' declaration order.
func (s *structure) shortestCycles(comp []int, in map[int]bool) [][]edgeFrom {
	var found [][]edgeFrom
	best := 0
	seen := map[string]bool{}
	starts := comp
	if size := len(comp) + len(s.cycleEdges(comp, in)); len(comp)*size > cycleSearchBudget {
		starts = comp[:max(1, cycleSearchBudget/size)]
	}
	for _, v := range starts {
		hops := s.shortestCycleThrough(v, in)
		if len(hops) == 0 || (best != 0 && len(hops) > best) {
			continue
		}
		if len(hops) < best || best == 0 {
			best, found, seen = len(hops), nil, map[string]bool{}
		}
		// Rotate to start at the first-declared member, so the same cycle
		// found from two of its members is recognised and printed alike.
		first := 0
		for k, h := range hops {
			if h.from < hops[first].from {
				first = k
			}
		}
		hops = append(slices.Clone(hops[first:]), hops[:first]...)
		var key strings.Builder
		for _, h := range hops {
			fmt.Fprintf(&key, "%d,", h.from)
		}
		if seen[key.String()] {
			continue
		}
		seen[key.String()] = true
		found = append(found, hops)
	}
	slices.SortStableFunc(found, func(a, b []edgeFrom) int {
		for k := range min(len(a), len(b)) {
			if c := a[k].from - b[k].from; c != 0 {
				return c
			}
		}
		return 0
	})
	if len(found) > maxShownCycles {
		found = found[:maxShownCycles]
	}
	return found
}

// sharedDecls returns the declarations (reference ranges) that every
// cycle of the component goes through, in the order of the component's
// edges: removing the edges one declaration made leaves the component
// acyclic. An edge that two declarations make (an app naming a
// dependency its stack already names) is never cut by removing one of
// them, so it is never removed.
func (s *structure) sharedDecls(comp []int, edges []edgeFrom) []edgeFrom {
	if len(edges) > maxCycleEdges {
		return nil
	}
	index := make(map[int]int, len(comp))
	for k, v := range comp {
		index[v] = k
	}
	var decls []edgeFrom
	seen := map[hcl.Range]bool{}
	for _, e := range edges {
		if !seen[e.edge.rng] {
			seen[e.edge.rng] = true
			decls = append(decls, e)
		}
	}
	indeg := make([]int, len(comp))
	out := make([][]int, len(comp))
	var shared []edgeFrom
	for _, d := range decls {
		clear(indeg)
		for k := range out {
			out[k] = out[k][:0]
		}
		for _, e := range edges {
			if e.edge.rng == d.edge.rng && !e.edge.alsoDeclared {
				continue
			}
			// Edges point at dependencies; Kahn's algorithm needs only
			// some consistent direction.
			f, t := index[e.from], index[e.edge.to]
			out[f] = append(out[f], t)
			indeg[t]++
		}
		queue := make([]int, 0, len(comp))
		for k, n := range indeg {
			if n == 0 {
				queue = append(queue, k)
			}
		}
		done := 0
		for len(queue) > 0 {
			v := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			done++
			for _, t := range out[v] {
				if indeg[t]--; indeg[t] == 0 {
					queue = append(queue, t)
				}
			}
		}
		if done == len(comp) {
			shared = append(shared, d)
		}
	}
	return shared
}

// hopText describes one edge for the report: the apps, and how the
// dependency is written when that is not the app's own app.NAME.
func (s *structure) hopText(h edgeFrom) (from, to string) {
	from, to = "app."+s.apps[h.from].Name, "app."+s.apps[h.edge.to].Name
	switch {
	case h.edge.fromStack:
		to += fmt.Sprintf(" (stack.%s depends on %s)", s.apps[h.from].Stack.Name, h.edge.via)
	case h.edge.via != to:
		to += " (via " + h.edge.via + ")"
	}
	return from, to
}

// declText names a declaration as written: the block whose depends_on
// holds the reference, and the reference.
func (s *structure) declText(h edgeFrom) (from, to string) {
	if h.edge.fromStack {
		return "stack." + s.apps[h.from].Stack.Name, h.edge.via
	}
	return "app." + s.apps[h.from].Name, h.edge.via
}

type hopLine struct{ from, to, at string }

func writeHops(b *strings.Builder, lines []hopLine) {
	wFrom, wTo := 0, 0
	for _, l := range lines {
		wFrom, wTo = max(wFrom, len(l.from)), max(wTo, len(l.to))
	}
	for _, l := range lines {
		fmt.Fprintf(b, "  %-*s depends on %-*s  %s\n", wFrom, l.from, wTo, l.to, l.at)
	}
}

func (s *structure) cycleDiag(comp []int) *hcl.Diagnostic {
	in := make(map[int]bool, len(comp))
	for _, id := range comp {
		in[id] = true
	}
	edges := s.cycleEdges(comp, in)
	cycles := s.shortestCycles(comp, in)
	var related []diag.Related
	var b strings.Builder
	// A component that is one simple cycle (as many edges as apps) has one
	// cycle, and every edge of it is shared: the short report says all.
	if len(edges) == len(comp) {
		b.WriteString("These apps depend on each other, so there is no order in which to deploy them:\n")
		lines := make([]hopLine, len(cycles[0]))
		for k, h := range cycles[0] {
			from, to := s.hopText(h)
			lines[k] = hopLine{from, to, diag.At(h.edge.rng)}
			related = append(related, diag.Related{Range: h.edge.rng, Message: from + " depends on " + to})
		}
		writeHops(&b, lines)
		b.WriteString("Remove one of these dependencies to break the cycle.")
		d := diag.Error(cycles[0][0].edge.rng, "Dependency cycle", b.String())
		d.Extra = &diag.Extra{Related: related}
		return d
	}
	names := make([]string, len(comp))
	for k, id := range comp {
		names[k] = "app." + s.apps[id].Name
	}
	fmt.Fprintf(&b, "These %d apps depend on each other, so there is no order in which to deploy them: %s.\n",
		len(comp), strings.Join(names, ", "))
	for k, c := range cycles {
		switch {
		case k > 0:
			b.WriteString("and:\n")
		case len(cycles) == 1:
			fmt.Fprintf(&b, "The shortest cycle among them has %d dependencies:\n", len(c))
		default:
			fmt.Fprintf(&b, "The shortest cycles among them have %d dependencies:\n", len(c))
		}
		lines := make([]hopLine, len(c))
		for j, h := range c {
			from, to := s.hopText(h)
			lines[j] = hopLine{from, to, diag.At(h.edge.rng)}
			if k == 0 {
				related = append(related, diag.Related{Range: h.edge.rng, Message: from + " depends on " + to})
			}
		}
		writeHops(&b, lines)
	}
	subject := cycles[0][0].edge.rng
	shared := s.sharedDecls(comp, edges)
	switch {
	case len(shared) > 0:
		if len(shared) == 1 {
			b.WriteString("Every cycle among these apps goes through this dependency, so removing it breaks them all:\n")
		} else {
			b.WriteString("Every cycle among these apps goes through each of these dependencies, so removing any one of them breaks them all:\n")
		}
		lines := make([]hopLine, len(shared))
		for k, h := range shared {
			from, to := s.declText(h)
			lines[k] = hopLine{from, to, diag.At(h.edge.rng)}
			related = append(related, diag.Related{Range: h.edge.rng, Message: "every cycle goes through " + from + " depends on " + to})
		}
		writeHops(&b, lines)
		subject = shared[0].edge.rng
	case len(edges) > maxCycleEdges:
		b.WriteString("Remove a dependency from each cycle, then run platc again to see what remains.")
	default:
		b.WriteString("No one dependency is on every cycle among these apps: remove one from each cycle shown, then run platc again to see what remains.")
	}
	d := diag.Error(subject, "Dependency cycle", strings.TrimSuffix(b.String(), "\n"))
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
