package plan

import (
	"container/heap"
	"slices"
	"time"

	"github.com/platc/platc/compiler/ir"
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
}

// Simulate runs the deploy of p on paper. groups is the deploy DAG's
// nesting, each group's apps in dependency order and groups in an order
// where every group comes after the groups it waits for (as emit/argo's
// Grouping lists them); nil means a flat DAG.
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
	s := Simulation{Parallelism: par, Groups: len(groups), Schedule: ASAP(p)}
	unlimited := len(p.Apps) + 1
	s.DAG = Model{Name: "dag", Unlimited: runDAG(p, groups, unlimited), Limited: runDAG(p, groups, par)}
	s.Waves = Model{Name: "waves", Unlimited: runWaves(p, unlimited), Limited: runWaves(p, par)}
	var total time.Duration
	for _, a := range p.Apps {
		total += a.ExpectedDuration
	}
	s.Serial = Model{Name: "serial", Unlimited: total, Limited: total}
	return s
}

// runDAG is an event-driven run of the nested DAG with at most par apps
// syncing at once.
func runDAG(p *ir.Program, groups [][]*ir.App, par int) time.Duration {
	n := len(p.Apps)
	groupOf := make([]int, n)
	for k, members := range groups {
		for _, a := range members {
			groupOf[a.Index] = k
		}
	}
	// waitingApps[i]: dependencies of app i inside its group not yet done;
	// waitingGroups[k]: groups group k waits for not yet done; left[k]:
	// apps of group k not yet done.
	waitingApps := make([]int, n)
	dependents := make([][]int, n)
	waitingGroups := make([]int, len(groups))
	groupDependents := make([][]int, len(groups))
	seen := make([]int, len(groups))
	for k := range seen {
		seen[k] = -1
	}
	left := make([]int, len(groups))
	for k, members := range groups {
		left[k] = len(members)
		for _, a := range members {
			for _, d := range a.Deps {
				h := groupOf[d.App.Index]
				switch {
				case h == k:
					waitingApps[a.Index]++
					dependents[d.App.Index] = append(dependents[d.App.Index], a.Index)
				case seen[h] != k:
					seen[h] = k
					waitingGroups[k]++
					groupDependents[h] = append(groupDependents[h], k)
				}
			}
		}
	}
	ready := &indexHeap{}
	started := make([]bool, len(groups))
	startGroup := func(k int) {
		started[k] = true
		for _, a := range groups[k] {
			if waitingApps[a.Index] == 0 {
				heap.Push(ready, a.Index)
			}
		}
	}
	for k := range groups {
		if waitingGroups[k] == 0 {
			startGroup(k)
		}
	}
	running := &finishHeap{}
	var now time.Duration
	done := 0
	for ready.Len() > 0 || running.Len() > 0 {
		for ready.Len() > 0 && running.Len() < par {
			i := heap.Pop(ready).(int)
			heap.Push(running, event{at: now + p.Apps[i].ExpectedDuration, app: i})
		}
		// Everything that finishes at the next moment finishes together,
		// then what became ready starts.
		now = (*running)[0].at
		for running.Len() > 0 && (*running)[0].at == now {
			i := heap.Pop(running).(event).app
			done++
			for _, j := range dependents[i] {
				if waitingApps[j]--; waitingApps[j] == 0 {
					heap.Push(ready, j)
				}
			}
			k := groupOf[i]
			if left[k]--; left[k] == 0 {
				for _, h := range groupDependents[k] {
					if waitingGroups[h]--; waitingGroups[h] == 0 && !started[h] {
						startGroup(h)
					}
				}
			}
		}
	}
	if done != n {
		panic("plan: the groups wait for each other in a cycle (this is a platc bug)")
	}
	return now
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
