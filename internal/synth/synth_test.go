package synth

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

func compile(t testing.TB, o Options) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources(Sources(o))
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	if len(diags) > 0 {
		t.Errorf("warnings: %s", diags.Error())
	}
	return p
}

// Every size the benchmarks use compiles cleanly, with the requested
// number of apps and stacks and about the requested number of edges.
func TestGenerateCompiles(t *testing.T) {
	for _, o := range []Options{
		{Apps: 1}, {Apps: 2}, {Apps: 43, Stacks: 11}, {Apps: 500}, {Apps: 1000, CrossStack: true},
		{Apps: 5000, Seed: 7}, {Apps: 5000, Seed: 7, CrossStack: true}, {Apps: 10000},
	} {
		t.Run(fmt.Sprintf("%d-%t", o.Apps, o.CrossStack), func(t *testing.T) {
			p := compile(t, o)
			if len(p.Apps) != o.Apps {
				t.Errorf("%d apps, want %d", len(p.Apps), o.Apps)
			}
			want := o.withDefaults().Stacks
			if len(p.Stacks) != want {
				t.Errorf("%d stacks, want %d", len(p.Stacks), want)
			}
			if o.Apps >= 43 {
				// Stack-level depends_on adds edges, so allow for that.
				perApp := float64(p.EdgeCount()) / float64(o.Apps)
				if perApp < 2 || perApp > 6 {
					t.Errorf("%.2f dependencies per app, want about 3", perApp)
				}
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	o := Options{Apps: 700, CrossStack: true, Seed: 42}
	if !bytes.Equal(Generate(o), Generate(o)) {
		t.Fatal("two runs with the same options differ")
	}
	o2 := o
	o2.Seed = 43
	if bytes.Equal(Generate(o), Generate(o2)) {
		t.Fatal("different seeds give the same platform")
	}
}

// stackEdges returns the set of stack pairs (from, to) with an app-level
// edge between different stacks.
func stackEdges(p *ir.Program) map[[2]string]bool {
	out := map[[2]string]bool{}
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			if a.Stack != d.App.Stack {
				out[[2]string{d.App.Stack.Name, a.Stack.Name}] = true
			}
		}
	}
	return out
}

// With CrossStack some pair of stacks depends on each other both ways;
// without it, the stack graph only points forward.
func TestCrossStack(t *testing.T) {
	cross := stackEdges(compile(t, Options{Apps: 300, Stacks: 6, CrossStack: true}))
	both := false
	for e := range cross {
		if cross[[2]string{e[1], e[0]}] {
			both = true
		}
	}
	if !both {
		t.Error("CrossStack: no two stacks depend on each other both ways")
	}
	for e := range stackEdges(compile(t, Options{Apps: 300, Stacks: 6})) {
		if e[0] > e[1] {
			t.Errorf("layered stacks: %s depends on the later %s", e[1], e[0])
		}
	}
}

func BenchmarkGenerate10k(b *testing.B) {
	for b.Loop() {
		Generate(Options{Apps: 10000, CrossStack: true})
	}
}
