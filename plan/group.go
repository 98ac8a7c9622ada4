package plan

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/platc/platc/compiler/ir"
)

// Limits are what one workflow of an orchestrator can hold. plan knows
// no orchestrator: emit/argo passes Argo Workflows' limits, and the plan
// command the same numbers.
type Limits struct {
	// Engine and Workflow name the orchestrator and one of its workflows
	// in messages, such as "Argo Workflows" and "Argo workflow".
	Engine, Workflow string
	// Tasks is the most tasks one DAG may hold.
	Tasks int
	// Groups is the most group templates one workflow may hold besides
	// the templates it needs anyway.
	Groups int
	// TopTasks, when set, is the most tasks of the DAG of groups; zero
	// means Tasks. A workflow of workflows sets it: its groups are
	// child workflows, smaller than Argo's DAG limit so that each stays
	// within the node budget, while the parent's DAG may still hold
	// Argo's full count of tasks.
	TopTasks int
}

// top is the most groups the DAG of groups may hold.
func (lim Limits) top() int {
	if lim.TopTasks > 0 {
		return min(lim.Groups, lim.TopTasks)
	}
	return min(lim.Groups, lim.Tasks)
}

// A Graph is the part of a platform that one DAG runs: apps in an order
// in which every app comes after the apps it waits for, and those edges.
// For deploy the edges are the apps' dependencies; for teardown, the
// reverse.
type Graph struct {
	Apps []*ir.App
	// Deps[i] are the indexes of the apps Apps[i] waits for, ascending.
	Deps [][]int
}

// DeployGraph restricts the dependency graph to apps, which must be in
// topological order (as ir.Program.Apps is).
func DeployGraph(apps []*ir.App) *Graph {
	pos := positions(apps)
	g := &Graph{Apps: apps, Deps: make([][]int, len(apps))}
	for i, a := range apps {
		for _, d := range a.Deps {
			if j, ok := pos(d.App); ok {
				g.Deps[i] = append(g.Deps[i], j)
			}
		}
		slices.Sort(g.Deps[i])
	}
	return g
}

// positions returns where each of apps is in apps. It looks them up by
// ir.App.Index (the app's place in its Program), cheaper than a map;
// apps built by hand, whose Index does not tell them apart, get a map.
func positions(apps []*ir.App) func(*ir.App) (int, bool) {
	top := 0
	for _, a := range apps {
		top = max(top, a.Index+1)
	}
	pos := make([]int, top)
	for i := range pos {
		pos[i] = -1
	}
	for i, a := range apps {
		if a.Index < 0 || pos[a.Index] >= 0 {
			m := make(map[*ir.App]int, len(apps))
			for i, a := range apps {
				m[a] = i
			}
			return func(a *ir.App) (int, bool) { i, ok := m[a]; return i, ok }
		}
		pos[a.Index] = i
	}
	return func(a *ir.App) (int, bool) {
		if x := a.Index; x >= 0 && x < top && pos[x] >= 0 && apps[pos[x]] == a {
			return pos[x], true
		}
		return -1, false
	}
}

// Independent is a graph of apps that wait for nothing: checks that may
// all run at once.
func Independent(apps []*ir.App) *Graph {
	return &Graph{Apps: apps, Deps: make([][]int, len(apps))}
}

// Reversed is the teardown graph: apps in reverse order, each waiting for
// the apps that depend on it.
func (g *Graph) Reversed() *Graph {
	n := len(g.Apps)
	r := &Graph{Apps: make([]*ir.App, n), Deps: make([][]int, n)}
	for i, a := range g.Apps {
		r.Apps[n-1-i] = a
	}
	for i, ds := range g.Deps {
		for _, d := range ds {
			r.Deps[n-1-d] = append(r.Deps[n-1-d], n-1-i)
		}
	}
	for i := range r.Deps {
		slices.Sort(r.Deps[i])
	}
	return r
}

// Grouping says how one DAG is laid out within the limits: a flat DAG
// when the apps fit in one, otherwise a DAG of groups, each group a DAG
// template of its own. An edge from group H to group G makes all of G
// wait for all of H, so every app-level dependency is honoured, at the
// price of some parallelism.
type Grouping struct {
	// Strategy names how the groups were chosen: "flat", "stacks",
	// "topological-slices", "start-time-slices", "latest-start-slices",
	// "wave-slices" (each optionally "-cut": cut where it costs least),
	// "wave-bands", "level-bands", or "slices" for independent checks.
	Strategy string
	// Groups lists each group's apps in dependency order; the groups come
	// in a topological order of the group graph. A flat DAG is one group.
	Groups [][]*ir.App
	// Members are Groups as indexes into the Graph's Apps, ascending.
	Members [][]int
	// Waits[k] are the groups group k waits for, ascending.
	Waits [][]int
	// Makespan is the estimated duration of the DAG as grouped, and
	// Ungrouped that of the flat DAG the orchestrator cannot run, both
	// from the apps' expected durations with unlimited parallelism.
	Makespan, Ungrouped time.Duration
}

// Nested reports whether the DAG had to be split.
func (gr Grouping) Nested() bool { return len(gr.Members) > 1 }

// DeployGrouping is the layout of p's deploy DAG within lim.
func DeployGrouping(p *ir.Program, lim Limits) (Grouping, error) {
	return Group(DeployGraph(p.Apps), DeployLimits(p.Apps, lim))
}

// DeployLimits are lim for a deploy of apps: a resource wait (RFC 5.1
// resource node) is a task beside the apps' tasks in the template of the
// apps that wait for it, so each resource waited for takes one task from
// every template's room, wherever it lands.
func DeployLimits(apps []*ir.App, lim Limits) Limits {
	seen := map[*ir.Resource]bool{}
	for _, a := range apps {
		for _, rd := range a.ResourceDeps {
			seen[rd.Resource] = true
		}
	}
	lim.Tasks = max(lim.Tasks-len(seen), 1)
	return lim
}

// grouper lays one graph out within one set of limits.
type grouper struct {
	g *Graph
	// tasks is the most apps in a group; groups the most groups, which
	// the top DAG, one task per group, also bounds.
	tasks, groups int
	lim           Limits
	// s is what every candidate's estimate reuses: a search estimates
	// dozens of candidates, each over every app, and keeps one.
	s *scratch
}

// Group picks, among the candidate layouts of g that respect lim, the one
// with the shortest estimated duration. Candidates are tried in a fixed
// order and a later one must be strictly better, so the choice is
// deterministic.
func Group(g *Graph, lim Limits) (Grouping, error) {
	n := len(g.Apps)
	s := newScratch(g)
	if n <= lim.Tasks {
		flat, _ := s.layout([][]int{identity(n)}, "flat")
		flat.Ungrouped = flat.Makespan
		return flat.withApps(g), nil
	}
	gp := grouper{g: g, tasks: lim.Tasks, groups: lim.top(), lim: lim, s: s}
	if err := gp.fits(); err != nil {
		return Grouping{}, err
	}
	// The flat DAG, which the orchestrator cannot run, only gives
	// Ungrouped.
	ungrouped, _ := s.estimate([][]int{identity(n)})
	best, found := gp.best()
	if !found {
		return Grouping{}, fmt.Errorf("no grouping of %d apps fits the limits of %s (this is a platc bug)", n, lim.Engine)
	}
	best.Ungrouped = ungrouped
	return best.withApps(g), nil
}

// Fit is nil when n apps can be laid out within lim, and otherwise the
// error Group and Slices return for them, without searching a layout:
// emit/argo asks it before it skips a layout it knows it will not use.
func (lim Limits) Fit(n int) error {
	if n <= lim.Tasks {
		return nil
	}
	return grouper{g: &Graph{Apps: make([]*ir.App, n)}, tasks: lim.Tasks, groups: lim.top(), lim: lim}.fits()
}

// Slices lays out a graph without edges (g from Independent): flat when
// it fits one DAG, otherwise the fewest groups of even size.
func Slices(g *Graph, lim Limits) (Grouping, error) {
	n := len(g.Apps)
	all := identity(n)
	if n <= lim.Tasks {
		gr, _ := layout(g, [][]int{all}, "flat")
		return gr.withApps(g), nil
	}
	gp := grouper{g: g, tasks: lim.Tasks, groups: lim.top(), lim: lim}
	if err := gp.fits(); err != nil {
		return Grouping{}, err
	}
	gr, _ := layout(g, cut(all, gp.fewest()), "slices")
	return gr.withApps(g), nil
}

func identity(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

// fewest is the least number of groups that holds every app.
func (gp grouper) fewest() int { return (len(gp.g.Apps) + gp.tasks - 1) / gp.tasks }

// fits fails when even full groups need more groups than allowed.
func (gp grouper) fits() error {
	if k := gp.fewest(); k > gp.groups {
		return fmt.Errorf("%d apps do not fit in one %s: at most %d groups of %d tasks", len(gp.g.Apps), gp.lim.Workflow, gp.groups, gp.tasks)
	}
	return nil
}

// best tries every candidate layout and keeps the fastest. Candidates
// are estimated in gp.s; only one that beats the best so far is copied
// out of it.
func (gp grouper) best() (Grouping, bool) {
	var best Grouping
	found := false
	consider := func(groups [][]int, strategy string) {
		span, ok := gp.s.estimate(groups)
		if ok && (!found || span < best.Makespan) {
			best, found = gp.s.result(strategy, span), true
		}
	}
	if groups, ok := gp.stackGroups(); ok {
		consider(groups, "stacks")
	}
	gp.sliceCandidates(consider)
	// Slices hold whole waves only while waves are small; once a wave has
	// more apps than a group, bands keep groups within waves (see
	// bandGroups), which costs at most what the RFC's wave-by-wave model
	// does.
	depth := depths(gp.g)
	for _, l := range []struct {
		name  string
		level []int
	}{{"wave-bands", depth}, {"level-bands", slackLevels(gp.g, depth)}} {
		if groups, ok := gp.bandGroups(l.level); ok {
			consider(groups, l.name)
		}
	}
	return best, found
}

// sliceCandidates cuts the apps, in each of four topological orders, into
// slices: k even slices for k from the fewest that fit, doubling, up to
// the limit, and the cuts that cost least. It hands each to consider, in
// that order.
func (gp grouper) sliceCandidates(consider func(groups [][]int, strategy string)) {
	g, kmin, limit := gp.g, gp.fewest(), gp.groups
	start, latest, wave := schedule(g)
	orders := []struct {
		name string
		key  []time.Duration
	}{
		{"topological-slices", nil},
		{"start-time-slices", start},
		{"latest-start-slices", latest},
		{"wave-slices", wave},
	}
	// consider copies what it keeps, so one order and one list of cuts
	// serve every candidate.
	order := make([]int, len(g.Apps))
	var groups [][]int
	for _, o := range orders {
		for i := range order {
			order[i] = i
		}
		if o.key != nil {
			// Sorting by start time (or wave), then position, keeps a
			// topological order: an app never starts before a dependency.
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(o.key[a], o.key[b]) })
		}
		for k := kmin; k <= limit; k *= 2 {
			groups = cutInto(groups[:0], order, k)
			consider(groups, o.name)
		}
		if kmin < limit && !isPowerMultiple(limit, kmin) {
			groups = cutInto(groups[:0], order, limit)
			consider(groups, o.name)
		}
		if cuts, ok := gp.bestCuts(order); ok {
			consider(cuts, o.name+"-cut")
		}
	}
}

func isPowerMultiple(limit, k int) bool {
	for ; k <= limit; k *= 2 {
		if k == limit {
			return true
		}
	}
	return false
}

// cut cuts order into k contiguous groups whose sizes differ by at most
// one.
func cut(order []int, k int) [][]int { return cutInto(make([][]int, 0, k), order, k) }

// cutInto is cut appending to out.
func cutInto(out [][]int, order []int, k int) [][]int {
	n := len(order)
	for i, at := 0, 0; i < k; i++ {
		size := n / k
		if i < n%k {
			size++
		}
		out = append(out, order[at:at+size])
		at += size
	}
	return out
}

// bestCuts cuts order into contiguous groups of at most gp.tasks where
// the cuts minimise the sum of the groups' own makespans: what the grouped
// DAG takes when each group waits for the one before it, as groups cut
// from a time-sorted order mostly do. Dynamic programming over cut
// positions, O(n · tasks · dependencies). It fails when the best cuts
// need more than gp.groups groups.
func (gp grouper) bestCuts(order []int) ([][]int, bool) {
	g := gp.g
	n := len(order)
	pos := make([]int, n)
	for k, i := range order {
		pos[i] = k
	}
	const unset = time.Duration(-1)
	best := make([]time.Duration, n+1)
	count := make([]int, n+1)
	from := make([]int, n+1)
	for j := 1; j <= n; j++ {
		best[j] = unset
	}
	finishAt := make([]time.Duration, n) // by position, for the current start
	for i := 0; i < n; i++ {
		var span time.Duration
		for j := i; j < min(i+gp.tasks, n); j++ {
			a := order[j]
			s := time.Duration(0)
			for _, d := range g.Deps[a] {
				if pd := pos[d]; pd >= i && pd < j {
					s = max(s, finishAt[pd])
				}
			}
			finishAt[j] = s + g.Apps[a].ExpectedDuration
			span = max(span, finishAt[j])
			c, k := best[i]+span, count[i]+1
			if best[j+1] == unset || c < best[j+1] || (c == best[j+1] && k < count[j+1]) {
				best[j+1], count[j+1], from[j+1] = c, k, i
			}
		}
	}
	if count[n] > gp.groups {
		return nil, false
	}
	var groups [][]int
	for j := n; j > 0; j = from[j] {
		groups = append(groups, order[from[j]:j])
	}
	slices.Reverse(groups)
	return groups, true
}

// stackGroups groups apps by stack (apps outside any stack form one more
// group), splitting stacks too big for one DAG into slices of their own
// dependency order. It is a candidate only when the stack graph is
// acyclic: stacks may well depend on each other in both directions.
func (gp grouper) stackGroups() ([][]int, bool) {
	index := map[*ir.Stack]int{}
	var byStack [][]int
	for i, a := range gp.g.Apps {
		k, ok := index[a.Stack]
		if !ok {
			k = len(byStack)
			index[a.Stack] = k
			byStack = append(byStack, nil)
		}
		byStack[k] = append(byStack[k], i)
	}
	var groups [][]int
	for _, members := range byStack {
		k := (len(members) + gp.tasks - 1) / gp.tasks
		groups = append(groups, cut(members, k)...)
	}
	if len(groups) > gp.groups {
		return nil, false
	}
	return groups, true
}

// layout derives the group graph, orders the groups topologically and
// estimates the makespan. It fails when the group graph has a cycle.
func layout(g *Graph, groups [][]int, strategy string) (Grouping, bool) {
	return newScratch(g).layout(groups, strategy)
}

// scratch holds what layout computes for one candidate, reused from one
// candidate to the next: only the best is kept, copied out by result.
type scratch struct {
	g *Graph
	// groupOf, by app, serves groupPreds; run, the estimate.
	groupOf []int
	run     runBuf
	// groups are the candidate's non-empty groups; preds, succs, mark,
	// indeg, ready and renumber serve the group graph and its order.
	groups                            [][]int
	preds, succs                      [][]int
	mark, indeg, ready, order, renumb []int
	// members and waits are the candidate as a Grouping has it, in the
	// groups' topological order, backed by memberBuf and waitBuf.
	members, waits     [][]int
	memberBuf, waitBuf []int
}

func newScratch(g *Graph) *scratch {
	n := len(g.Apps)
	groupOf := make([]int, n)
	return &scratch{g: g, groupOf: groupOf, memberBuf: make([]int, 0, n),
		// The estimate runs after groupPreds is done with groupOf.
		run: runBuf{groupOf: groupOf, finishAt: make([]time.Duration, n)}}
}

// grow returns s resliced to m elements, reusing its array when it can.
func grow[T any](s []T, m int) []T {
	if cap(s) < m {
		return make([]T, m)
	}
	return s[:m]
}

// layout is the candidate groups as a Grouping of its own.
func (s *scratch) layout(groups [][]int, strategy string) (Grouping, bool) {
	span, ok := s.estimate(groups)
	if !ok {
		return Grouping{}, false
	}
	return s.result(strategy, span), true
}

// estimate lays out the candidate groups in s and returns its makespan.
// It fails when the group graph has a cycle.
func (s *scratch) estimate(groups [][]int) (time.Duration, bool) {
	// A cut into more slices than apps leaves empty ones, possible once
	// the DAG of groups may hold more groups than a group holds apps
	// (Limits.TopTasks); an empty group is a DAG without tasks, which
	// Argo rejects.
	s.groups = s.groups[:0]
	for _, m := range groups {
		if len(m) > 0 {
			s.groups = append(s.groups, m)
		}
	}
	s.groupPreds()
	if !s.topoGroups() {
		return 0, false
	}
	m := len(s.groups)
	s.renumb = grow(s.renumb, m)
	for newK, oldK := range s.order {
		s.renumb[oldK] = newK
	}
	s.members, s.waits = grow(s.members, m), grow(s.waits, m)
	s.memberBuf, s.waitBuf = s.memberBuf[:0], s.waitBuf[:0]
	for newK, oldK := range s.order {
		at := len(s.memberBuf)
		s.memberBuf = append(s.memberBuf, s.groups[oldK]...)
		s.members[newK] = s.memberBuf[at:len(s.memberBuf):len(s.memberBuf)]
		slices.Sort(s.members[newK])
		at = len(s.waitBuf)
		for _, p := range s.preds[oldK] {
			s.waitBuf = append(s.waitBuf, s.renumb[p])
		}
		s.waits[newK] = s.waitBuf[at:len(s.waitBuf):len(s.waitBuf)]
		slices.Sort(s.waits[newK])
	}
	// memberBuf and waitBuf may have moved while they grew.
	for k, at, wat := 0, 0, 0; k < m; k++ {
		nm, nw := len(s.members[k]), len(s.waits[k])
		s.members[k] = s.memberBuf[at : at+nm : at+nm]
		s.waits[k] = s.waitBuf[wat : wat+nw : wat+nw]
		at, wat = at+nm, wat+nw
	}
	gr := Grouping{Members: s.members, Waits: s.waits}
	return gr.runUnlimitedIn(s.g, expected, &s.run), true
}

// result copies the candidate last estimated out of s.
func (s *scratch) result(strategy string, span time.Duration) Grouping {
	m := len(s.members)
	gr := Grouping{Strategy: strategy, Members: make([][]int, m), Waits: make([][]int, m), Makespan: span}
	members := slices.Clone(s.memberBuf)
	var waits []int
	if len(s.waitBuf) > 0 {
		waits = slices.Clone(s.waitBuf)
	}
	for k, at, wat := 0, 0, 0; k < m; k++ {
		nm, nw := len(s.members[k]), len(s.waits[k])
		gr.Members[k] = members[at : at+nm : at+nm]
		if nw > 0 {
			gr.Waits[k] = waits[wat : wat+nw : wat+nw]
		}
		at, wat = at+nm, wat+nw
	}
	return gr
}

// withApps fills Groups for the layout chosen: the search estimates
// many candidates and needs only their members.
func (gr Grouping) withApps(g *Graph) Grouping {
	gr.Groups = make([][]*ir.App, len(gr.Members))
	for k, members := range gr.Members {
		gr.Groups[k] = make([]*ir.App, len(members))
		for j, i := range members {
			gr.Groups[k][j] = g.Apps[i]
		}
	}
	return gr
}

// groupPreds sets s.preds: for each group, the groups holding a
// dependency of one of its apps, each listed once.
func (s *scratch) groupPreds() {
	for k, members := range s.groups {
		for _, i := range members {
			s.groupOf[i] = k
		}
	}
	m := len(s.groups)
	s.preds = grow(s.preds, m)
	// mark[h] == k says that group k already waits for h.
	s.mark = grow(s.mark, m)
	for k := range s.mark {
		s.mark[k] = -1
		s.preds[k] = s.preds[k][:0]
	}
	for to, members := range s.groups {
		for _, i := range members {
			for _, d := range s.g.Deps[i] {
				from := s.groupOf[d]
				if from == to || s.mark[from] == to {
					continue
				}
				s.mark[from] = to
				s.preds[to] = append(s.preds[to], from)
			}
		}
	}
}

// topoGroups sets s.order, the group graph in Kahn's algorithm's order;
// among ready groups the one listed first goes first, which keeps slice
// order and makes the result deterministic. It fails on a cycle.
func (s *scratch) topoGroups() bool {
	m := len(s.preds)
	s.succs, s.indeg = grow(s.succs, m), grow(s.indeg, m)
	for k := range s.succs {
		s.succs[k] = s.succs[k][:0]
	}
	for k, ps := range s.preds {
		s.indeg[k] = len(ps)
		for _, p := range ps {
			s.succs[p] = append(s.succs[p], k)
		}
	}
	ready, order := s.ready[:0], s.order[:0]
	for k := range m {
		if s.indeg[k] == 0 {
			ready = append(ready, k)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		k := ready[0]
		// Shift rather than reslice, so ready's array is reused.
		ready = append(ready[:0], ready[1:]...)
		order = append(order, k)
		for _, x := range s.succs[k] {
			if s.indeg[x]--; s.indeg[x] == 0 {
				ready = append(ready, x)
			}
		}
	}
	s.ready, s.order = ready, order
	return len(order) == m
}

func expected(a *ir.App) time.Duration { return a.ExpectedDuration }

// schedule returns, for the ungrouped DAG, each app's earliest start
// (ASAP), its latest start that does not delay the end (ALAP), and its
// wave (longest chain of dependencies before it). They are durations so
// all three sort the same way, and each sorts the apps topologically.
func schedule(g *Graph) (start, latest, wave []time.Duration) {
	n := len(g.Apps)
	start = make([]time.Duration, n)
	wave = make([]time.Duration, n)
	var end time.Duration
	for i := range n {
		for _, d := range g.Deps[i] {
			start[i] = max(start[i], start[d]+g.Apps[d].ExpectedDuration)
			wave[i] = max(wave[i], wave[d]+1)
		}
		end = max(end, start[i]+g.Apps[i].ExpectedDuration)
	}
	latest = make([]time.Duration, n)
	for i := range latest {
		latest[i] = end - g.Apps[i].ExpectedDuration
	}
	for i := n - 1; i >= 0; i-- {
		for _, d := range g.Deps[i] {
			latest[d] = min(latest[d], latest[i]-g.Apps[d].ExpectedDuration)
		}
	}
	return start, latest, wave
}

// depths is each app's wave: the number of dependencies on its longest
// chain of them, as ir.Program.Waves counts.
func depths(g *Graph) []int {
	depth := make([]int, len(g.Apps))
	for i, ds := range g.Deps {
		for _, d := range ds {
			depth[i] = max(depth[i], depth[d]+1)
		}
	}
	return depth
}

// slackLevels moves apps that have slack to later levels where an app at
// least as long already runs, so that each level's longest app, which a
// level of bands waits for, adds less: apps are visited in dependency
// order and each goes to the level, between the one after its last
// dependency and the last one that still leaves room for its longest
// chain of dependents, where it lengthens the level least (the earliest
// on a tie).
func slackLevels(g *Graph, depth []int) []int {
	n := len(g.Apps)
	levels := 0
	for _, d := range depth {
		levels = max(levels, d+1)
	}
	height := make([]int, n) // dependents on the longest chain after i
	for i := n - 1; i >= 0; i-- {
		for _, d := range g.Deps[i] {
			height[d] = max(height[d], height[i]+1)
		}
	}
	level := make([]int, n)
	longest := make([]time.Duration, levels)
	for i := range n {
		lo := 0
		for _, d := range g.Deps[i] {
			lo = max(lo, level[d]+1)
		}
		dur := g.Apps[i].ExpectedDuration
		best, cost := lo, time.Duration(-1)
		for l := lo; l <= levels-1-height[i]; l++ {
			if c := max(0, dur-longest[l]); cost < 0 || c < cost {
				best, cost = l, c
			}
		}
		level[i] = best
		longest[best] = max(longest[best], dur)
	}
	return level
}

// bandGroups lays the DAG out in bands of consecutive levels, where every
// app's dependencies are in earlier levels: a band is either a run of
// levels with at most gp.tasks apps in all, one group in which chains
// run freely, or one level, cut into groups that run side by side.
// Dynamic programming over the level boundaries (bestBands) picks the
// bands with the least total duration (each band waiting for the one
// before), then the fewest groups. Each level on its own is always a
// choice, so the result takes at most the sum of each level's longest
// app: with the apps' waves as levels, what the RFC's wave-by-wave model
// takes. It fails when the bands need more than gp.groups groups.
func (gp grouper) bandGroups(level []int) ([][]int, bool) {
	levels := 0
	for _, l := range level {
		levels = max(levels, l+1)
	}
	byLevel := make([][]int, levels)
	for i, l := range level {
		byLevel[l] = append(byLevel[l], i)
	}
	bands, ok := gp.bestBands(byLevel)
	if !ok {
		return nil, false
	}
	var groups [][]int
	for _, band := range bands {
		var members []int
		for l := band[0]; l < band[1]; l++ {
			members = append(members, byLevel[l]...)
		}
		if len(members) == 0 {
			continue
		}
		slices.Sort(members)
		groups = append(groups, cut(members, (len(members)+gp.tasks-1)/gp.tasks)...)
	}
	return groups, true
}

// bestBands is bandGroups' dynamic programme: the bands [from, to) of
// levels, in order.
func (gp grouper) bestBands(byLevel [][]int) ([][2]int, bool) {
	g, levels := gp.g, len(byLevel)
	inBand := make([]bool, len(g.Apps))
	finishAt := make([]time.Duration, len(g.Apps))
	const unset = time.Duration(-1)
	best := make([]time.Duration, levels+1)
	count := make([]int, levels+1)
	from := make([]int, levels+1)
	for j := 1; j <= levels; j++ {
		best[j] = unset
	}
	for a := range levels {
		var span time.Duration
		size := 0
		b := a + 1
		for ; b <= levels; b++ {
			size += len(byLevel[b-1])
			if b > a+1 && size > gp.tasks {
				break
			}
			// The band [a, b) grows by one level: its apps start when
			// their dependencies inside the band are done.
			for _, i := range byLevel[b-1] {
				inBand[i] = true
				var s time.Duration
				for _, d := range g.Deps[i] {
					if inBand[d] {
						s = max(s, finishAt[d])
					}
				}
				finishAt[i] = s + g.Apps[i].ExpectedDuration
				span = max(span, finishAt[i])
			}
			c, k := best[a]+span, count[a]+(size+gp.tasks-1)/gp.tasks
			if best[b] == unset || c < best[b] || c == best[b] && k < count[b] {
				best[b], count[b], from[b] = c, k, a
			}
		}
		for l := a; l < min(b, levels); l++ {
			for _, i := range byLevel[l] {
				inBand[i] = false
			}
		}
	}
	if count[levels] > gp.groups {
		return nil, false
	}
	var bands [][2]int
	for b := levels; b > 0; b = from[b] {
		bands = append(bands, [2]int{from[b], b})
	}
	slices.Reverse(bands)
	return bands, true
}
