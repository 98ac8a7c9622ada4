package argo

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/platc/platc/compiler/ir"
)

// graph is the part of a platform that one DAG runs: apps in an order in
// which every app comes after the apps it waits for, and those edges. For
// deploy the edges are the apps' dependencies; for teardown, the reverse.
type graph struct {
	apps []*ir.App
	// deps[i] are the indexes of the apps i waits for, ascending.
	deps [][]int
}

// newGraph restricts the dependency graph to apps, which must be in
// topological order (as ir.Program.Apps is).
func newGraph(apps []*ir.App) *graph {
	pos := make(map[*ir.App]int, len(apps))
	for i, a := range apps {
		pos[a] = i
	}
	g := &graph{apps: apps, deps: make([][]int, len(apps))}
	for i, a := range apps {
		for _, d := range a.Deps {
			if j, ok := pos[d.App]; ok {
				g.deps[i] = append(g.deps[i], j)
			}
		}
		slices.Sort(g.deps[i])
	}
	return g
}

// reversed is the teardown graph: apps in reverse order, each waiting for
// the apps that depend on it.
func (g *graph) reversed() *graph {
	n := len(g.apps)
	r := &graph{apps: make([]*ir.App, n), deps: make([][]int, n)}
	for i, a := range g.apps {
		r.apps[n-1-i] = a
	}
	for i, ds := range g.deps {
		for _, d := range ds {
			r.deps[n-1-d] = append(r.deps[n-1-d], n-1-i)
		}
	}
	for i := range r.deps {
		slices.Sort(r.deps[i])
	}
	return r
}

// Grouping says how one DAG is laid out within Argo's limits: a flat DAG
// when the apps fit in one, otherwise a DAG of groups, each group a DAG
// template of its own. An edge from group H to group G makes all of G
// wait for all of H, so every app-level dependency is honoured, at the
// price of some parallelism.
type Grouping struct {
	// Strategy names how the groups were chosen: "flat", "stacks",
	// "topological-slices", "start-time-slices", "latest-start-slices",
	// "wave-slices" (each optionally "-cut": cut where it costs least),
	// "wave-bands" or "level-bands".
	Strategy string
	// Groups lists each group's apps in dependency order; the groups come
	// in a topological order of the group graph. A flat DAG is one group.
	Groups [][]*ir.App
	// Makespan is the estimated duration of the DAG as grouped, and
	// Ungrouped that of the flat DAG Argo cannot run, both from the apps'
	// expected durations with unlimited parallelism (as plan computes).
	Makespan, Ungrouped time.Duration

	groups    [][]int
	groupDeps [][]int
}

// Nested reports whether the DAG had to be split.
func (gr Grouping) Nested() bool { return len(gr.groups) > 1 }

// DeployGrouping is the layout of p's deploy DAG; plan uses it to show
// what Argo's limits cost.
func DeployGrouping(p *ir.Program) (Grouping, error) {
	return chooseGrouping(newGraph(p.Apps), deployGroupLimit)
}

// deployGroupLimit is how many group templates a deploy or teardown
// workflow can hold besides main and the top DAG.
const deployGroupLimit = MaxTemplates - 2

// chooseGrouping picks, among the candidate layouts that respect the
// limits, the one with the shortest estimated duration. Candidates are
// tried in a fixed order and a later one must be strictly better, so the
// choice is deterministic.
func chooseGrouping(g *graph, maxGroups int) (Grouping, error) {
	n := len(g.apps)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	flat, _ := finish(g, [][]int{all}, "flat")
	ungrouped := flat.Makespan
	if n <= MaxTasks {
		flat.Ungrouped = ungrouped
		return flat, nil
	}
	limit := min(maxGroups, MaxTasks)
	kmin := (n + MaxTasks - 1) / MaxTasks
	if kmin > limit {
		return Grouping{}, fmt.Errorf("%d apps do not fit in one Argo workflow: at most %d groups of %d tasks", n, limit, MaxTasks)
	}
	var best Grouping
	found := false
	consider := func(c Grouping, ok bool) {
		if ok && (!found || c.Makespan < best.Makespan) {
			best, found = c, true
		}
	}
	consider(stackGroups(g, limit))
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
	for _, o := range orders {
		order := slices.Clone(all)
		if o.key != nil {
			// Sorting by start time (or wave), then position, keeps a
			// topological order: an app never starts before a dependency.
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(o.key[a], o.key[b]) })
		}
		for k := kmin; k <= limit; k *= 2 {
			consider(finish(g, cut(order, k), o.name))
		}
		if kmin < limit && !isPowerMultiple(limit, kmin) {
			consider(finish(g, cut(order, limit), o.name))
		}
		if cuts, ok := bestCuts(g, order, limit); ok {
			consider(finish(g, cuts, o.name+"-cut"))
		}
	}
	// Slices hold whole waves only while waves are small; once a wave has
	// more apps than a group, bands keep groups within waves (see
	// bandGroups), which costs at most what the RFC's wave-by-wave model
	// does.
	depth := depths(g)
	for _, l := range []struct {
		name  string
		level []int
	}{{"wave-bands", depth}, {"level-bands", slackLevels(g, depth)}} {
		if groups, ok := bandGroups(g, l.level, limit); ok {
			consider(finish(g, groups, l.name))
		}
	}
	if !found {
		return Grouping{}, fmt.Errorf("no grouping of %d apps fits Argo's limits (this is a platc bug)", n)
	}
	best.Ungrouped = ungrouped
	return best, nil
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
func cut(order []int, k int) [][]int {
	n := len(order)
	out := make([][]int, 0, k)
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

// bestCuts cuts order into contiguous groups of at most MaxTasks where
// the cuts minimise the sum of the groups' own makespans: what the grouped
// DAG takes when each group waits for the one before it, as groups cut
// from a time-sorted order mostly do. Dynamic programming over cut
// positions, O(n · MaxTasks · dependencies). It fails when the best cuts
// need more than limit groups.
func bestCuts(g *graph, order []int, limit int) ([][]int, bool) {
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
		for j := i; j < min(i+MaxTasks, n); j++ {
			a := order[j]
			s := time.Duration(0)
			for _, d := range g.deps[a] {
				if pd := pos[d]; pd >= i && pd < j {
					s = max(s, finishAt[pd])
				}
			}
			finishAt[j] = s + g.apps[a].ExpectedDuration
			span = max(span, finishAt[j])
			c, k := best[i]+span, count[i]+1
			if best[j+1] == unset || c < best[j+1] || (c == best[j+1] && k < count[j+1]) {
				best[j+1], count[j+1], from[j+1] = c, k, i
			}
		}
	}
	if count[n] > limit {
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
func stackGroups(g *graph, limit int) (Grouping, bool) {
	index := map[*ir.Stack]int{}
	var byStack [][]int
	for i, a := range g.apps {
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
		k := (len(members) + MaxTasks - 1) / MaxTasks
		groups = append(groups, cut(members, k)...)
	}
	if len(groups) > limit {
		return Grouping{}, false
	}
	return finish(g, groups, "stacks")
}

// finish derives the group graph, orders the groups topologically and
// estimates the makespan. It fails when the group graph has a cycle.
func finish(g *graph, groups [][]int, strategy string) (Grouping, bool) {
	groupOf := make([]int, len(g.apps))
	for k, members := range groups {
		for _, i := range members {
			groupOf[i] = k
		}
	}
	m := len(groups)
	preds := make([][]int, m)
	succs := make([][]int, m)
	// Each group's predecessors are collected once: mark[h] == k says
	// that group k already waits for h.
	mark := make([]int, m)
	for k := range mark {
		mark[k] = -1
	}
	for to, members := range groups {
		for _, i := range members {
			for _, d := range g.deps[i] {
				from := groupOf[d]
				if from == to || mark[from] == to {
					continue
				}
				mark[from] = to
				preds[to] = append(preds[to], from)
				succs[from] = append(succs[from], to)
			}
		}
	}
	// Kahn's algorithm; among ready groups the one listed first goes
	// first, which keeps slice order and makes the result deterministic.
	indeg := make([]int, m)
	for k := range preds {
		indeg[k] = len(preds[k])
	}
	var ready, order []int
	for k := range m {
		if indeg[k] == 0 {
			ready = append(ready, k)
		}
	}
	for len(ready) > 0 {
		slices.Sort(ready)
		k := ready[0]
		ready = ready[1:]
		order = append(order, k)
		for _, s := range succs[k] {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	if len(order) < m {
		return Grouping{}, false
	}
	renumber := make([]int, m)
	for newK, oldK := range order {
		renumber[oldK] = newK
	}
	gr := Grouping{Strategy: strategy, groups: make([][]int, m), groupDeps: make([][]int, m), Groups: make([][]*ir.App, m)}
	for oldK, members := range groups {
		k := renumber[oldK]
		gr.groups[k] = slices.Sorted(slices.Values(members))
		for _, p := range preds[oldK] {
			gr.groupDeps[k] = append(gr.groupDeps[k], renumber[p])
		}
		slices.Sort(gr.groupDeps[k])
	}
	for k, members := range gr.groups {
		for _, i := range members {
			gr.Groups[k] = append(gr.Groups[k], g.apps[i])
		}
	}
	gr.Makespan = groupedMakespan(g, gr.groups, gr.groupDeps, expected)
	return gr, true
}

func expected(a *ir.App) time.Duration { return a.ExpectedDuration }

// groupedMakespan runs the grouped DAG on paper, each app taking dur: a
// group starts when the groups it waits for are done, and inside it each
// app starts as soon as the group has started and its dependencies within
// the group are done.
func groupedMakespan(g *graph, groups, groupDeps [][]int, dur func(*ir.App) time.Duration) time.Duration {
	finishAt := make([]time.Duration, len(g.apps))
	groupEnd := make([]time.Duration, len(groups))
	// Groups are visited in topological order: when an app is reached, its
	// dependencies in earlier groups already carry another group number.
	groupOf := make([]int, len(g.apps))
	for i := range groupOf {
		groupOf[i] = -1
	}
	var end time.Duration
	for k, members := range groups {
		var begin time.Duration
		for _, h := range groupDeps[k] {
			begin = max(begin, groupEnd[h])
		}
		groupEnd[k] = begin
		for _, i := range members {
			groupOf[i] = k
		}
		for _, i := range members { // in graph order: dependencies first
			s := begin
			for _, d := range g.deps[i] {
				if groupOf[d] == k {
					s = max(s, finishAt[d])
				}
			}
			finishAt[i] = addSat(s, dur(g.apps[i]))
			groupEnd[k] = max(groupEnd[k], finishAt[i])
		}
		end = max(end, groupEnd[k])
	}
	return end
}

// schedule returns, for the ungrouped DAG, each app's earliest start
// (ASAP), its latest start that does not delay the end (ALAP), and its
// wave (longest chain of dependencies before it). They are durations so
// all three sort the same way, and each sorts the apps topologically.
func schedule(g *graph) (start, latest, wave []time.Duration) {
	n := len(g.apps)
	start = make([]time.Duration, n)
	wave = make([]time.Duration, n)
	var end time.Duration
	for i := range n {
		for _, d := range g.deps[i] {
			start[i] = max(start[i], start[d]+g.apps[d].ExpectedDuration)
			wave[i] = max(wave[i], wave[d]+1)
		}
		end = max(end, start[i]+g.apps[i].ExpectedDuration)
	}
	latest = make([]time.Duration, n)
	for i := range latest {
		latest[i] = end - g.apps[i].ExpectedDuration
	}
	for i := n - 1; i >= 0; i-- {
		for _, d := range g.deps[i] {
			latest[d] = min(latest[d], latest[i]-g.apps[d].ExpectedDuration)
		}
	}
	return start, latest, wave
}

// depths is each app's wave: the number of dependencies on its longest
// chain of them, as ir.Program.Waves counts.
func depths(g *graph) []int {
	depth := make([]int, len(g.apps))
	for i, ds := range g.deps {
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
func slackLevels(g *graph, depth []int) []int {
	n := len(g.apps)
	levels := 0
	for _, d := range depth {
		levels = max(levels, d+1)
	}
	height := make([]int, n) // dependents on the longest chain after i
	for i := n - 1; i >= 0; i-- {
		for _, d := range g.deps[i] {
			height[d] = max(height[d], height[i]+1)
		}
	}
	level := make([]int, n)
	longest := make([]time.Duration, levels)
	for i := range n {
		lo := 0
		for _, d := range g.deps[i] {
			lo = max(lo, level[d]+1)
		}
		dur := g.apps[i].ExpectedDuration
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
// levels with at most MaxTasks apps in all, one group in which chains run
// freely, or one level, cut into groups that run side by side. Dynamic
// programming over the level boundaries picks the bands with the least
// total duration (each band waiting for the one before), then the fewest
// groups. Each level on its own is always a choice, so the result takes
// at most the sum of each level's longest app: with the apps' waves as
// levels, what the RFC's wave-by-wave model takes. It fails when the
// bands need more than limit groups.
func bandGroups(g *graph, level []int, limit int) ([][]int, bool) {
	levels := 0
	for _, l := range level {
		levels = max(levels, l+1)
	}
	byLevel := make([][]int, levels)
	for i, l := range level {
		byLevel[l] = append(byLevel[l], i)
	}
	inBand := make([]bool, len(g.apps))
	finishAt := make([]time.Duration, len(g.apps))
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
			if b > a+1 && size > MaxTasks {
				break
			}
			// The band [a, b) grows by one level: its apps start when
			// their dependencies inside the band are done.
			for _, i := range byLevel[b-1] {
				inBand[i] = true
				var s time.Duration
				for _, d := range g.deps[i] {
					if inBand[d] {
						s = max(s, finishAt[d])
					}
				}
				finishAt[i] = s + g.apps[i].ExpectedDuration
				span = max(span, finishAt[i])
			}
			c, k := best[a]+span, count[a]+(size+MaxTasks-1)/MaxTasks
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
	if count[levels] > limit {
		return nil, false
	}
	var bands [][2]int
	for b := levels; b > 0; b = from[b] {
		bands = append(bands, [2]int{from[b], b})
	}
	slices.Reverse(bands)
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
		groups = append(groups, cut(members, (len(members)+MaxTasks-1)/MaxTasks)...)
	}
	return groups, true
}
