package plan

import (
	"container/heap"
	"slices"
	"time"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/satmath"
)

// A Model is one way of running a deploy, simulated with every app taking
// exactly its expected duration.
type Model struct {
	// Name is "dag", "waves" or "serial".
	Name string
	// Unlimited is the makespan when any number of apps may sync at once.
	Unlimited time.Duration
	// Limited is the makespan when at most Simulation.Parallelism apps
	// sync at once.
	Limited time.Duration
}

// Simulation compares the deploy DAG platc emits with the RFC's
// wave-by-wave execution model (RFC 5.3) and with a fully serial order.
type Simulation struct {
	// Parallelism is the workflow's parallelism (platform.workflows
	// .parallelism): how many app tasks Argo runs at once.
	Parallelism int
	// Groups is how many groups the deploy DAG is nested in; 1 when it is
	// flat.
	Groups int
	// DAG runs each app as soon as its own dependencies are healthy,
	// within the nesting Argo's limits impose: a group starts when every
	// group holding one of its apps' dependencies is done.
	DAG Model
	// Waves runs the program's waves one after the other: a wave starts
	// only when every app of the previous one is healthy.
	Waves Model
	// Serial runs one app at a time.
	Serial Model
	// Schedule is the flat DAG with unlimited parallelism: its makespan is
	// the length of the critical path, a lower bound for any order.
	Schedule Schedule
	// Enough is the least parallelism at which the deploy DAG takes
	// DAG.Unlimited (found by bisection; greedy schedules are not
	// strictly monotone in the parallelism, so a smaller value may
	// occasionally do as well): above it more apps at once buy nothing.
	Enough int
}

// Simulate runs the deploy of p on paper. groups is the deploy DAG's
// nesting, each group's apps in dependency order and groups in an order
// where every group comes after the groups it waits for (as
// Grouping.Groups lists them); nil means a flat DAG.
//
// With limited parallelism the apps that are ready at the same moment
// start in the order of p.Apps (dependency order, then name), which is
// how the deploy template lists its tasks; Argo's own order when its
// parallelism limit is reached is an implementation detail, so the
// limited figures are estimates. Polling, pod start-up and retries are
// not modelled.
func Simulate(p *ir.Program, groups [][]*ir.App) Simulation {
	par := max(p.Platform.Workflows.Parallelism, 1)
	if groups == nil {
		groups = [][]*ir.App{p.Apps}
	}
	members := make([][]int, len(groups))
	for k, g := range groups {
		for _, a := range g {
			members[k] = append(members[k], a.Index)
		}
	}
	g := DeployGraph(p.Apps)
	gr, ok := layout(g, members, "")
	if !ok {
		panic("plan: the groups wait for each other in a cycle (this is a platc bug)")
	}
	s := Simulation{Parallelism: par, Groups: len(groups), Schedule: ASAP(p)}
	unlimited := len(p.Apps) + 1
	s.DAG = Model{Name: "dag", Unlimited: gr.run(g, unlimited, expected), Limited: gr.run(g, par, expected)}
	lo, hi := 1, max(len(p.Apps), 1) // run(hi) is the unlimited makespan
	for lo < hi {
		mid := (lo + hi) / 2
		if gr.run(g, mid, expected) <= s.DAG.Unlimited {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	s.Enough = lo
	s.Waves = Model{Name: "waves", Unlimited: runWaves(p, unlimited), Limited: runWaves(p, par)}
	var total time.Duration
	for _, a := range p.Apps {
		total += a.ExpectedDuration
	}
	s.Serial = Model{Name: "serial", Unlimited: total, Limited: total}
	return s
}

// WorstCase bounds how long the grouped DAG of g takes when each app
// takes at most dur and at most par apps run at once. In a greedy
// schedule, at any moment either every slot is busy or an app of one
// chain is running (each app of it waiting for the one before, through a
// dependency or a group barrier). That chain takes at most the longest
// path L, and the busy moments hold the rest of the work W, so the run
// ends within L + (W-L)/par (Graham's bound). The sums saturate.
func (gr Grouping) WorstCase(g *Graph, par int, dur func(*ir.App) time.Duration) time.Duration {
	// Deadline with every app at dur is exactly that bound.
	return gr.Deadline(g, par, dur, dur)
}

// Deadline is a workflow deadline for the grouped DAG of g, where
// WorstCase would be a bound: the longest chain when each of its apps
// takes chain (its timeouts and retries: a chain that is slow or stuck),
// plus the rest of the platform's work at its usual pace (shared), spread
// over par slots. WorstCase with every app at its timeouts is a bound no
// run reaches and, on the example, held the deploy lock for a day; a
// deadline is the backstop for a stuck run, so it assumes one slow chain,
// not a platform where everything is slow at once. The sums saturate.
func (gr Grouping) Deadline(g *Graph, par int, chain, shared func(*ir.App) time.Duration) time.Duration {
	if len(g.Apps) == 0 {
		return 0
	}
	var work time.Duration
	for _, a := range g.Apps {
		work = satmath.Add(work, shared(a))
	}
	path := gr.run(g, len(g.Apps), chain)
	if work == satmath.Max {
		return satmath.Max
	}
	// The shared path is the work of one chain of distinct apps, so
	// work >= its length.
	rest := work - gr.run(g, len(g.Apps), shared)
	return satmath.Add(path, rest/time.Duration(max(par, 1)))
}

// run is the one simulation of a grouped DAG: each app of g takes dur, at
// most par at once; a group starts when the groups it waits for are
// done, and inside it each app starts as soon as the group has started
// and its dependencies within the group are done. It returns when the
// last app finishes.
func (gr Grouping) run(g *Graph, par int, dur func(*ir.App) time.Duration) time.Duration {
	if par >= len(g.Apps) {
		return gr.runUnlimited(g, dur)
	}
	return gr.runLimited(g, par, dur)
}

// runUnlimited is run when nothing waits for a free slot: one pass over
// the groups in their topological order, so the layout search can afford
// to estimate every candidate. Sums saturate, as worst cases can be
// huge.
func (gr Grouping) runUnlimited(g *Graph, dur func(*ir.App) time.Duration) time.Duration {
	return gr.runUnlimitedIn(g, dur, &runBuf{})
}

// runBuf is runUnlimited's memory, which the layout search reuses from
// one candidate to the next.
type runBuf struct {
	finishAt, groupEnd []time.Duration
	groupOf            []int
}

// runUnlimitedIn is runUnlimited in buf's memory, grown as needed.
func (gr Grouping) runUnlimitedIn(g *Graph, dur func(*ir.App) time.Duration, buf *runBuf) time.Duration {
	buf.finishAt = grow(buf.finishAt, len(g.Apps))
	buf.groupEnd = grow(buf.groupEnd, len(gr.Members))
	buf.groupOf = grow(buf.groupOf, len(g.Apps))
	finishAt, groupEnd, groupOf := buf.finishAt, buf.groupEnd, buf.groupOf
	// When an app is reached, its dependencies in earlier groups already
	// carry another group number.
	for i := range groupOf {
		groupOf[i] = -1
	}
	var end time.Duration
	for k, members := range gr.Members {
		var begin time.Duration
		for _, h := range gr.Waits[k] {
			begin = max(begin, groupEnd[h])
		}
		groupEnd[k] = begin
		for _, i := range members {
			groupOf[i] = k
		}
		for _, i := range members { // in graph order: dependencies first
			s := begin
			for _, d := range g.Deps[i] {
				if groupOf[d] == k {
					s = max(s, finishAt[d])
				}
			}
			finishAt[i] = satmath.Add(s, dur(g.Apps[i]))
			groupEnd[k] = max(groupEnd[k], finishAt[i])
		}
		end = max(end, groupEnd[k])
	}
	return end
}

// runLimited is run with at most par apps at once: an event-driven run
// in which the apps that become ready at one moment start in graph order.
func (gr Grouping) runLimited(g *Graph, par int, dur func(*ir.App) time.Duration) time.Duration {
	st := newRunState(g, gr)
	ready := &indexHeap{}
	startGroup := func(k int) {
		st.started[k] = true
		for _, i := range gr.Members[k] {
			if st.waitingApps[i] == 0 {
				heap.Push(ready, i)
			}
		}
	}
	for k := range gr.Members {
		if st.waitingGroups[k] == 0 {
			startGroup(k)
		}
	}
	running := &finishHeap{}
	var now time.Duration
	done := 0
	for ready.Len() > 0 || running.Len() > 0 {
		for ready.Len() > 0 && running.Len() < par {
			i := heap.Pop(ready).(int)
			heap.Push(running, event{at: now + dur(g.Apps[i]), app: i})
		}
		// Everything that finishes at the next moment finishes together,
		// then what became ready starts.
		now = (*running)[0].at
		for running.Len() > 0 && (*running)[0].at == now {
			i := heap.Pop(running).(event).app
			done++
			for _, j := range st.dependents[i] {
				if st.waitingApps[j]--; st.waitingApps[j] == 0 {
					heap.Push(ready, j)
				}
			}
			k := st.groupOf[i]
			if st.left[k]--; st.left[k] == 0 {
				for _, h := range st.groupDependents[k] {
					if st.waitingGroups[h]--; st.waitingGroups[h] == 0 && !st.started[h] {
						startGroup(h)
					}
				}
			}
		}
	}
	if done != len(g.Apps) {
		panic("plan: the groups wait for each other in a cycle (this is a platc bug)")
	}
	return now
}

// runState is what runLimited counts down: waitingApps[i], the
// dependencies of app i inside its group not yet done; waitingGroups[k],
// the groups group k waits for not yet done; left[k], the apps of group
// k not yet done.
type runState struct {
	groupOf                     []int
	waitingApps, waitingGroups  []int
	left                        []int
	dependents, groupDependents [][]int
	started                     []bool
}

func newRunState(g *Graph, gr Grouping) *runState {
	n, m := len(g.Apps), len(gr.Members)
	st := &runState{
		groupOf: make([]int, n), waitingApps: make([]int, n), dependents: make([][]int, n),
		waitingGroups: make([]int, m), groupDependents: make([][]int, m), left: make([]int, m), started: make([]bool, m),
	}
	for k, members := range gr.Members {
		for _, i := range members {
			st.groupOf[i] = k
		}
	}
	for k, members := range gr.Members {
		st.left[k] = len(members)
		st.waitingGroups[k] = len(gr.Waits[k])
		for _, h := range gr.Waits[k] {
			st.groupDependents[h] = append(st.groupDependents[h], k)
		}
		for _, i := range members {
			for _, d := range g.Deps[i] {
				if st.groupOf[d] == k {
					st.waitingApps[i]++
					st.dependents[d] = append(st.dependents[d], i)
				}
			}
		}
	}
	return st
}

// runWaves runs the waves one after the other, each with at most par apps
// syncing at once.
func runWaves(p *ir.Program, par int) time.Duration {
	var total time.Duration
	for _, wave := range p.Waves {
		// Apps start in dependency order, as in the DAG.
		wave = slices.SortedFunc(slices.Values(wave), func(a, b *ir.App) int { return a.Index - b.Index })
		slots := &durationHeap{}
		var end time.Duration
		for _, a := range wave {
			var start time.Duration
			if slots.Len() == par {
				start = heap.Pop(slots).(time.Duration)
			}
			f := start + a.ExpectedDuration
			heap.Push(slots, f)
			end = max(end, f)
		}
		total += end
	}
	return total
}

type event struct {
	at  time.Duration
	app int
}

// finishHeap orders running apps by finish time, then index.
type finishHeap []event

func (h finishHeap) Len() int { return len(h) }
func (h finishHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].app < h[j].app
}
func (h finishHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *finishHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *finishHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type indexHeap []int

func (h indexHeap) Len() int           { return len(h) }
func (h indexHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h indexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *indexHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *indexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type durationHeap []time.Duration

func (h durationHeap) Len() int           { return len(h) }
func (h durationHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h durationHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *durationHeap) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *durationHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
