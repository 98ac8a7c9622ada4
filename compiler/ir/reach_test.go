package ir

import "testing"

// a ← b ← c, and c → a directly (implied through b); d alone.
func TestReach(t *testing.T) {
	a := &App{Name: "a", Index: 0}
	b := &App{Name: "b", Index: 1, Deps: []Dep{{App: a}}}
	c := &App{Name: "c", Index: 2, Deps: []Dep{{App: a}, {App: b}}}
	d := &App{Name: "d", Index: 3}
	for _, indexed := range []bool{true, false} {
		p := &Program{Apps: []*App{a, b, c, d}}
		if indexed {
			p.Index()
		}
		for _, tc := range []struct {
			from, to *App
			want     bool
		}{{c, a, true}, {c, b, true}, {b, a, true}, {a, c, false}, {a, a, false}, {d, a, false}} {
			if got := p.Reaches(tc.from, tc.to); got != tc.want {
				t.Errorf("indexed %v: %s reaches %s = %v", indexed, tc.from.Name, tc.to.Name, got)
			}
		}
		if via := p.ImpliedBy(c, a); via != b {
			t.Errorf("indexed %v: c → a implied by %v, want b", indexed, via)
		}
		if via := p.ImpliedBy(c, b); via != nil {
			t.Errorf("indexed %v: c → b implied by %s", indexed, via.Name)
		}
	}
}
