package plan

import (
	"time"

	"github.com/platc/platc/compiler/ir"
)

// Step is one app on the critical path with its estimated schedule.
type Step struct {
	App    *ir.App
	Start  time.Duration
	Finish time.Duration
}

// Schedule is the as-soon-as-possible schedule of a Program: each app
// starts when the last of its dependencies finishes.
type Schedule struct {
	// Start and Finish are indexed like Program.Apps.
	Start, Finish []time.Duration
	// Makespan is when the last app finishes: the length of the critical
	// path.
	Makespan time.Duration
	// CriticalPath is the chain of apps that determines Makespan, first
	// app first.
	CriticalPath []Step
}

// ASAP computes the schedule in which every app starts as soon as all of
// its own dependencies are done, which is how the deploy DAG runs.
// Ties are broken towards the app earlier in topological order, so the
// result is deterministic.
func ASAP(p *ir.Program) Schedule {
	n := len(p.Apps)
	s := Schedule{Start: make([]time.Duration, n), Finish: make([]time.Duration, n)}
	pred := make([]int, n)
	last := -1
	for _, a := range p.Apps { // topological order: deps are done first
		pred[a.Index] = -1
		for _, d := range a.Deps {
			// Deps are in topological order, so on a tie the earlier one
			// stays the predecessor.
			if f := s.Finish[d.App.Index]; pred[a.Index] == -1 || f > s.Start[a.Index] {
				s.Start[a.Index] = f
				pred[a.Index] = d.App.Index
			}
		}
		s.Finish[a.Index] = s.Start[a.Index] + a.ExpectedDuration
		if last == -1 || s.Finish[a.Index] > s.Finish[last] {
			last = a.Index
		}
	}
	if last == -1 {
		return s
	}
	s.Makespan = s.Finish[last]
	for at := last; at != -1; at = pred[at] {
		s.CriticalPath = append(s.CriticalPath, Step{App: p.Apps[at], Start: s.Start[at], Finish: s.Finish[at]})
	}
	for i, j := 0, len(s.CriticalPath)-1; i < j; i, j = i+1, j-1 {
		s.CriticalPath[i], s.CriticalPath[j] = s.CriticalPath[j], s.CriticalPath[i]
	}
	return s
}
