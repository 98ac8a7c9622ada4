package plan_test

import (
	"testing"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/satmath"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/internal/synth/synthtest"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/plan"
)

func example(t *testing.T) *ir.Program {
	t.Helper()
	m, diags := lang.Parse("../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// waveModel is RFC 5.3 computed the obvious way: each wave takes as long
// as its longest app.
func waveModel(p *ir.Program) time.Duration {
	var total time.Duration
	for _, w := range p.Waves {
		var longest time.Duration
		for _, a := range w {
			longest = max(longest, a.ExpectedDuration)
		}
		total += longest
	}
	return total
}

// On the RFC's example (durations from RFC 3.8.2) the deploy DAG takes
// exactly the critical path, with any parallelism and with the example's
// own (10); wave by wave takes longer, serial longer still.
func TestSimulateExample(t *testing.T) {
	p := example(t)
	s := plan.Simulate(p, nil)
	var path, serial time.Duration
	for _, st := range s.Schedule.CriticalPath {
		path += st.App.ExpectedDuration
	}
	for _, a := range p.Apps {
		serial += a.ExpectedDuration
	}
	if path != 44*time.Minute {
		t.Errorf("critical path %v, want the RFC example's 44m", path)
	}
	if s.DAG.Unlimited != path || s.DAG.Limited != path {
		t.Errorf("deploy DAG %v / %v with parallelism %d, want the critical path %v", s.DAG.Unlimited, s.DAG.Limited, s.Parallelism, path)
	}
	if want := waveModel(p); s.Waves.Unlimited != want || want <= path {
		t.Errorf("wave model %v, want %v (more than the critical path %v)", s.Waves.Unlimited, want, path)
	}
	if s.Waves.Limited < s.Waves.Unlimited {
		t.Errorf("waves with parallelism %v beat unlimited %v", s.Waves.Limited, s.Waves.Unlimited)
	}
	if s.Serial.Unlimited != serial || s.Serial.Limited != serial {
		t.Errorf("serial %v / %v, want %v", s.Serial.Unlimited, s.Serial.Limited, serial)
	}
	if s.Parallelism != p.Platform.Workflows.Parallelism || s.Groups != 1 {
		t.Errorf("parallelism %d, groups %d", s.Parallelism, s.Groups)
	}
}

// A small case worked by hand: a (2m) and b (10m) first, c (3m) after a,
// d (1m) after b and c.
func TestSimulateByHand(t *testing.T) {
	a := &ir.App{Name: "a", Index: 0, ExpectedDuration: 2 * time.Minute}
	b := &ir.App{Name: "b", Index: 1, ExpectedDuration: 10 * time.Minute}
	c := &ir.App{Name: "c", Index: 2, ExpectedDuration: 3 * time.Minute, Deps: []ir.Dep{{App: a}}}
	d := &ir.App{Name: "d", Index: 3, ExpectedDuration: 1 * time.Minute, Deps: []ir.Dep{{App: b}, {App: c}}}
	p := &ir.Program{Apps: []*ir.App{a, b, c, d}, Waves: [][]*ir.App{{a, b}, {c}, {d}}}
	for _, tc := range []struct {
		name                string
		parallelism         int
		groups              [][]*ir.App
		unlimited, limited  time.Duration
		waves, wavesLimited time.Duration
		enough              int
	}{
		// Flat: d waits for b (10m). One at a time: 16m, in any model.
		{"flat", 1, nil, 11 * time.Minute, 16 * time.Minute, 14 * time.Minute, 16 * time.Minute, 2},
		// Two at a time: a and b, then c at 2m, d at 10m.
		{"flat, 2", 2, nil, 11 * time.Minute, 11 * time.Minute, 14 * time.Minute, 14 * time.Minute, 2},
		// Group {a, c} then {b, d}: b waits for c (5m), ends at 15m, d at 16m.
		// One at a time already: each group is a chain.
		{"nested", 2, [][]*ir.App{{a, c}, {b, d}}, 16 * time.Minute, 16 * time.Minute, 14 * time.Minute, 14 * time.Minute, 1},
		// Group {a, b} then {c, d}: c starts at 10m.
		{"by wave", 4, [][]*ir.App{{a, b}, {c, d}}, 14 * time.Minute, 14 * time.Minute, 14 * time.Minute, 14 * time.Minute, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Platform.Workflows.Parallelism = tc.parallelism
			s := plan.Simulate(p, tc.groups)
			if s.DAG.Unlimited != tc.unlimited || s.DAG.Limited != tc.limited {
				t.Errorf("DAG %v / %v, want %v / %v", s.DAG.Unlimited, s.DAG.Limited, tc.unlimited, tc.limited)
			}
			if s.Waves.Unlimited != tc.waves || s.Waves.Limited != tc.wavesLimited {
				t.Errorf("waves %v / %v, want %v / %v", s.Waves.Unlimited, s.Waves.Limited, tc.waves, tc.wavesLimited)
			}
			if s.Serial.Unlimited != 16*time.Minute {
				t.Errorf("serial %v", s.Serial.Unlimited)
			}
			if s.Enough != tc.enough {
				t.Errorf("enough parallelism %d, want %d", s.Enough, tc.enough)
			}
		})
	}
}

// The simulation of the nested DAG agrees with the estimate the layout
// search made of the layout it chose, and never beats the critical path.
func TestSimulateNested(t *testing.T) {
	for _, o := range []synth.Options{{Apps: 1000, CrossStack: true}, {Apps: 3000, Layers: 300}} {
		p := synthtest.Program(t, o)
		gr, err := plan.DeployGrouping(p, plan.Limits{Engine: "Argo Workflows", Workflow: "Argo workflow", Tasks: 200, Groups: 198})
		if err != nil {
			t.Fatal(err)
		}
		s := plan.Simulate(p, gr.Groups)
		if s.DAG.Unlimited != gr.Makespan || s.Schedule.Makespan != gr.Ungrouped {
			t.Errorf("%d apps: simulated %v (flat %v), the layout search estimates %v (flat %v)", o.Apps, s.DAG.Unlimited, s.Schedule.Makespan, gr.Makespan, gr.Ungrouped)
		}
		if s.DAG.Unlimited < s.Schedule.Makespan || s.DAG.Limited < s.DAG.Unlimited || s.Groups != len(gr.Groups) {
			t.Errorf("%d apps: %+v", o.Apps, s.DAG)
		}
		// Enough reaches the unlimited makespan and one fewer does not.
		for _, par := range []int{s.Enough, s.Enough - 1} {
			p.Platform.Workflows.Parallelism = par
			reached := plan.Simulate(p, gr.Groups).DAG.Limited == s.DAG.Unlimited
			if reached != (par == s.Enough) {
				t.Errorf("%d apps, parallelism %d (enough %d): reaches the unlimited makespan %v: %t", o.Apps, par, s.Enough, s.DAG.Unlimited, reached)
			}
		}
	}
}

// WorstCase is Graham's bound, L + (W-L)/par: one at a time it is the
// serial sum, which every order reaches, and it never falls below the
// simulated run.
func TestWorstCaseByHand(t *testing.T) {
	a := &ir.App{Name: "a", Index: 0, ExpectedDuration: 2 * time.Minute}
	b := &ir.App{Name: "b", Index: 1, ExpectedDuration: 10 * time.Minute}
	c := &ir.App{Name: "c", Index: 2, ExpectedDuration: 3 * time.Minute, Deps: []ir.Dep{{App: a}}}
	d := &ir.App{Name: "d", Index: 3, ExpectedDuration: 1 * time.Minute, Deps: []ir.Dep{{App: b}, {App: c}}}
	apps := []*ir.App{a, b, c, d}
	g := plan.DeployGraph(apps)
	gr, err := plan.Group(g, plan.Limits{Engine: "Argo Workflows", Workflow: "Argo workflow", Tasks: 200, Groups: 198})
	if err != nil {
		t.Fatal(err)
	}
	expected := func(a *ir.App) time.Duration { return a.ExpectedDuration }
	// W = 16m, L = b, d = 11m.
	for par, want := range map[int]time.Duration{1: 16 * time.Minute, 2: 13*time.Minute + 30*time.Second, 4: 12*time.Minute + 15*time.Second} {
		if got := gr.WorstCase(g, par, expected); got != want {
			t.Errorf("parallelism %d: %v, want %v", par, got, want)
		}
		p := &ir.Program{Apps: apps, Waves: [][]*ir.App{{a, b}, {c}, {d}}}
		p.Platform.Workflows.Parallelism = par
		if s := plan.Simulate(p, nil); s.DAG.Limited > gr.WorstCase(g, par, expected) {
			t.Errorf("parallelism %d: simulated %v above the bound", par, s.DAG.Limited)
		}
	}
	huge := func(a *ir.App) time.Duration {
		if a == b {
			return satmath.Max
		}
		return time.Minute
	}
	if got := gr.WorstCase(g, 2, huge); got != satmath.Max {
		t.Errorf("with a saturated app: %v, want satmath.Max", got)
	}
}
