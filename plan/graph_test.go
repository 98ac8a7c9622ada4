package plan

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/lang"
)

func program(t *testing.T, src string) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(`platform "p" {
  git { repo_url = "https://git.example.com/p.git" }
}
` + src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

func edgeNames(names func(int) string, edges []Edge) []string {
	var out []string
	for _, e := range edges {
		out = append(out, names(e.From)+"->"+names(e.To))
	}
	return out
}

func TestReduce(t *testing.T) {
	p := program(t, `
stack "base" {
  app "a" {}
  app "b" { depends_on = [app.a] }
}
stack "top" {
  depends_on = [stack.base]
  app "c" {}
  app "d" { depends_on = [app.c, app.a] }
}
`)
	app := func(i int) string { return p.Apps[i].Name }
	// c and d depend on a and b through the stack; a is implied by b for
	// both, b by c for d, and d's own a too.
	want := []string{"a->b", "b->c", "c->d"}
	if diff := cmp.Diff(want, edgeNames(app, Reduce(p))); diff != "" {
		t.Errorf("reduction (-want +got):\n%s", diff)
	}
}

// The reduction keeps exactly the reachability of the full graph, on the
// example and on synthetic platforms with cross-stack dependencies.
func TestReduceKeepsReachability(t *testing.T) {
	progs := map[string]*ir.Program{}
	m, diags := lang.Parse("../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	progs["example"], _ = compiler.Compile(m, compiler.Options{})
	for _, o := range []synth.Options{{Apps: 300, CrossStack: true, Seed: 2}, {Apps: 200, Layers: 9}} {
		m, diags := lang.ParseSources(synth.Sources(o))
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		progs[fmt.Sprintf("synth-%d-%d", o.Apps, o.Layers)], _ = compiler.Compile(m, compiler.Options{})
	}
	for name, p := range progs {
		t.Run(name, func(t *testing.T) {
			reduced := &ir.Program{Apps: make([]*ir.App, len(p.Apps))}
			for i, a := range p.Apps {
				reduced.Apps[i] = &ir.App{Name: a.Name, Index: a.Index}
			}
			edges := Reduce(p)
			for _, e := range edges {
				to := reduced.Apps[e.To]
				to.Deps = append(to.Deps, ir.Dep{App: reduced.Apps[e.From]})
			}
			reduced.Index()
			for _, a := range p.Apps {
				for _, b := range p.Apps {
					if p.Reaches(a, b) != reduced.Reaches(reduced.Apps[a.Index], reduced.Apps[b.Index]) {
						t.Fatalf("app %s reaches %s: %v before the reduction, not after", a.Name, b.Name, p.Reaches(a, b))
					}
				}
			}
			// No kept edge is implied by the others.
			if again := Reduce(reduced); len(again) != len(edges) {
				t.Errorf("reducing the reduction drops %d more edges", len(edges)-len(again))
			}
			// The critical path runs along kept edges, so the drawing can
			// highlight it.
			for _, e := range ASAP(p).CriticalEdges() {
				if !Contains(edges, e) {
					t.Errorf("critical hop %s->%s is not in the reduction", p.Apps[e.From].Name, p.Apps[e.To].Name)
				}
			}
			t.Logf("%d of %d edges kept", len(edges), p.EdgeCount())
		})
	}
}

// Stacks that depend on each other both ways keep their edges; an edge
// between components is dropped only when another path implies it.
func TestByStack(t *testing.T) {
	p := program(t, `
stack "a" {
  app "a1" {}
  app "a2" { depends_on = [app.b1] }
}
stack "b" {
  app "b1" { depends_on = [app.a1] }
}
stack "c" {
  app "c1" { depends_on = [app.a2, app.b1] }
}
stack "d" {
  app "d1" { depends_on = [app.c1, app.a1] }
}
app "loose" { depends_on = [app.d1] }
`)
	g := ByStack(p)
	name := func(i int) string { return g.Nodes[i].Name() }
	// a and b form a cycle; c depends on both (two edges into c, kept:
	// they are between components, and no other path leads from {a,b}
	// to c); d's edge from a is implied through c.
	want := []string{"a->b", "a->c", "b->a", "b->c", "c->d", "d->loose"}
	if diff := cmp.Diff(want, edgeNames(name, g.Edges)); diff != "" {
		t.Errorf("stack edges (-want +got):\n%s", diff)
	}
	if g.Nodes[g.Of[p.App("loose").Index]].App == nil {
		t.Errorf("an app outside stacks should be its own node")
	}
}
