package ir

import "sync"

// Reachability over the app graph, decided once per Program: which apps
// an app depends on directly or transitively. plan's transitive
// reduction and lint's redundant-dependency both ask "is this edge
// implied by the others"; both read it here.

// reachCache holds the sets, computed on the first question: a build
// never asks, and the sets of a 10,000-app platform take 12 MB.
type reachCache struct {
	once sync.Once
	sets [][]uint64
}

// reachSets returns, for each app by Index, the bitset of the apps it
// depends on directly or transitively. Apps is in topological order, so
// each dependency's set is complete before it is merged.
func (p *Program) reachSets() [][]uint64 {
	compute := func() [][]uint64 {
		words := (len(p.Apps) + 63) / 64
		sets := make([][]uint64, len(p.Apps))
		for _, a := range p.Apps {
			s := make([]uint64, words)
			for _, d := range a.Deps {
				s[d.App.Index/64] |= 1 << (d.App.Index % 64)
				for i, w := range sets[d.App.Index] {
					s[i] |= w
				}
			}
			sets[a.Index] = s
		}
		return sets
	}
	if p.reach == nil { // a Program built by hand without Index
		return compute()
	}
	p.reach.once.Do(func() { p.reach.sets = compute() })
	return p.reach.sets
}

// Reaches reports whether a depends on b, directly or transitively.
func (p *Program) Reaches(a, b *App) bool {
	return p.reachSets()[a.Index][b.Index/64]&(1<<(b.Index%64)) != 0
}

// ImpliedBy returns a direct dependency of a, other than b, through which
// a reaches b: the reason the edge a → b adds nothing to the order. It
// returns nil when there is none.
func (p *Program) ImpliedBy(a, b *App) *App {
	sets := p.reachSets()
	for _, d := range a.Deps {
		if d.App != b && sets[d.App.Index][b.Index/64]&(1<<(b.Index%64)) != 0 {
			return d.App
		}
	}
	return nil
}
