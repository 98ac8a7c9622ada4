package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/internal/synth/synthtest"
	"github.com/platc/platc/lang"
)

// argoLimits are the numbers emit/argo passes (Argo Workflows' 200 tasks
// per DAG, 200 templates per workflow less main and the top DAG); plan
// itself knows no orchestrator.
var argoLimits = Limits{Engine: "Argo Workflows", Workflow: "Argo workflow", Tasks: 200, Groups: 198}

func synthetic(t testing.TB, o synth.Options) *ir.Program { return synthtest.Program(t, o) }

func source(t testing.TB, src string) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatalf("compile: %s", diags.Error())
	}
	return p
}

// checkGrouping checks what every layout must satisfy: Argo's limits, each
// app in exactly one group, groups in topological order of the group
// graph, every cross-group dependency an edge of the group graph, and a
// makespan no better than the ungrouped one.
func checkGrouping(t *testing.T, p *ir.Program, gr Grouping, limit int) {
	t.Helper()
	if len(gr.Groups) > limit || len(gr.Groups) > argoLimits.Tasks {
		t.Fatalf("%d groups, limit %d", len(gr.Groups), limit)
	}
	groupOf := map[*ir.App]int{}
	for k, g := range gr.Groups {
		if len(g) == 0 || len(g) > argoLimits.Tasks {
			t.Fatalf("group %d has %d apps", k, len(g))
		}
		for _, a := range g {
			if _, dup := groupOf[a]; dup {
				t.Fatalf("%s is in two groups", a.Name)
			}
			groupOf[a] = k
		}
	}
	if len(groupOf) != len(p.Apps) {
		t.Fatalf("%d apps grouped, want %d", len(groupOf), len(p.Apps))
	}
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			g, h := groupOf[a], groupOf[d.App]
			if h > g {
				t.Fatalf("%s (group %d) depends on %s in the later group %d", a.Name, g, d.App.Name, h)
			}
			if h < g && !containsInt(gr.Waits[g], h) {
				t.Fatalf("%s depends on %s but group %d does not wait for group %d", a.Name, d.App.Name, g, h)
			}
		}
	}
	if gr.Makespan < gr.Ungrouped {
		t.Fatalf("grouped makespan %v is shorter than the ungrouped %v", gr.Makespan, gr.Ungrouped)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestGroupingLimitsAndOrder(t *testing.T) {
	for _, o := range []synth.Options{
		{Apps: 200}, {Apps: 201}, {Apps: 450, Stacks: 3}, {Apps: 1000}, {Apps: 1000, CrossStack: true},
		{Apps: 3000, Layers: 5}, {Apps: 3000, Layers: 300, CrossStack: true},
	} {
		t.Run(fmt.Sprintf("%d-%d-%t", o.Apps, o.Layers, o.CrossStack), func(t *testing.T) {
			p := synthetic(t, o)
			gr, err := DeployGrouping(p, argoLimits)
			if err != nil {
				t.Fatal(err)
			}
			checkGrouping(t, p, gr, argoLimits.Groups)
			if want := ASAP(p).Makespan; gr.Ungrouped != want {
				t.Errorf("ungrouped makespan %v, plan says %v", gr.Ungrouped, want)
			}
			if nested := o.Apps > argoLimits.Tasks; gr.Nested() != nested {
				t.Errorf("Nested() = %t for %d apps", gr.Nested(), o.Apps)
			}
			if !gr.Nested() && gr.Makespan != gr.Ungrouped {
				t.Errorf("flat DAG: makespan %v differs from ungrouped %v", gr.Makespan, gr.Ungrouped)
			}
			again, _ := DeployGrouping(p, argoLimits)
			if fmt.Sprint(names(again.Groups)) != fmt.Sprint(names(gr.Groups)) || again.Strategy != gr.Strategy {
				t.Error("two groupings of the same program differ")
			}
			if o.CrossStack && gr.Strategy == "stacks" {
				t.Error("stacks chosen although they depend on each other both ways")
			}
		})
	}
}

func names(groups [][]*ir.App) [][]string {
	out := make([][]string, len(groups))
	for k, g := range groups {
		for _, a := range g {
			out[k] = append(out[k], a.Name)
		}
	}
	return out
}

// Two independent stacks of long chains: grouping by stack costs
// nothing, while any slicing of the whole order would chain one stack
// behind the other. The chooser must find the free layout.
func TestGroupingPrefersFreeStacks(t *testing.T) {
	var b strings.Builder
	b.WriteString("platform \"p\" {\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\n")
	for _, s := range []string{"left", "right"} {
		fmt.Fprintf(&b, "stack %q {\n", s)
		for i := range 150 {
			fmt.Fprintf(&b, "  app \"%s-%03d\" {\n    expected_duration = \"1m\"\n", s, i)
			if i > 0 {
				fmt.Fprintf(&b, "    depends_on = [app.%s-%03d]\n", s, i-1)
			}
			b.WriteString("  }\n")
		}
		b.WriteString("}\n")
	}
	p := source(t, b.String())
	gr, err := DeployGrouping(p, argoLimits)
	if err != nil {
		t.Fatal(err)
	}
	checkGrouping(t, p, gr, argoLimits.Groups)
	if gr.Makespan != 150*time.Minute || gr.Ungrouped != 150*time.Minute {
		t.Errorf("makespan %v (ungrouped %v), want 2h30m for both", gr.Makespan, gr.Ungrouped)
	}
	if gr.Strategy != "stacks" || len(gr.Groups) != 2 {
		t.Errorf("strategy %s with %d groups, want stacks with 2", gr.Strategy, len(gr.Groups))
	}
}

// Beyond 200 groups of 200 tasks no layout fits one workflow; that is an
// error, not a silently invalid output.
func TestGroupingTooBig(t *testing.T) {
	n := argoLimits.Tasks*min(argoLimits.Groups, argoLimits.Tasks) + 1
	g := &Graph{Apps: make([]*ir.App, n), Deps: make([][]int, n)}
	for i := range g.Apps {
		g.Apps[i] = &ir.App{Name: fmt.Sprintf("a%d", i), ExpectedDuration: time.Minute}
	}
	if _, err := Group(g, argoLimits); err == nil || err.Error() != fmt.Sprintf("%d apps do not fit in one Argo workflow: at most 198 groups of 200 tasks", n) {
		t.Errorf("Group(%d apps) = %v, want a does-not-fit error", n, err)
	}
	g.Apps, g.Deps = g.Apps[:n-1], g.Deps[:n-1]
	gr, err := Group(g, argoLimits)
	if err != nil {
		t.Fatalf("Group(%d apps): %v", n-1, err)
	}
	if len(gr.Groups) != argoLimits.Groups {
		t.Errorf("%d groups for %d apps", len(gr.Groups), n-1)
	}
}

// Nesting never makes the deploy slower than the RFC's wave-by-wave model
// when a band layout fits Argo's limits: one band per wave is always a
// candidate.
func TestNestedNoSlowerThanWaves(t *testing.T) {
	for _, o := range []synth.Options{
		{Apps: 1000, CrossStack: true}, {Apps: 5000, CrossStack: true, Seed: 5},
		{Apps: 10000}, {Apps: 10000, CrossStack: true}, {Apps: 4000, Layers: 8},
	} {
		t.Run(fmt.Sprintf("%d-%d-%t", o.Apps, o.Layers, o.CrossStack), func(t *testing.T) {
			p := synthetic(t, o)
			var waves time.Duration
			groups := 0
			for _, w := range p.Waves {
				var longest time.Duration
				for _, a := range w {
					longest = max(longest, a.ExpectedDuration)
				}
				waves += longest
				groups += (len(w) + argoLimits.Tasks - 1) / argoLimits.Tasks
			}
			if groups > argoLimits.Groups {
				t.Skipf("one band per wave needs %d groups", groups)
			}
			gr, err := DeployGrouping(p, argoLimits)
			if err != nil {
				t.Fatal(err)
			}
			checkGrouping(t, p, gr, argoLimits.Groups)
			if gr.Makespan > waves {
				t.Errorf("nested (%s, %d groups) takes %v, wave by wave %v", gr.Strategy, len(gr.Groups), gr.Makespan, waves)
			}
		})
	}
}

// BenchmarkGrouping measures the choice of nested layout alone.
func BenchmarkGrouping(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		p := synthtest.Program(b, synthtest.Options(n))
		for b.Loop() {
			if _, err := DeployGrouping(p, argoLimits); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// DeployGraph finds positions by ir.App.Index, and falls back to the
// apps themselves when their Index does not tell them apart (apps built
// by hand); a subset keeps only the edges inside it.
func TestDeployGraphPositions(t *testing.T) {
	a := &ir.App{Name: "a"}
	b := &ir.App{Name: "b", Deps: []ir.Dep{{App: a}}}
	c := &ir.App{Name: "c", Deps: []ir.Dep{{App: a}, {App: b}}}
	want := [][]int{nil, {0}, {0, 1}}
	if got := DeployGraph([]*ir.App{a, b, c}).Deps; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("unindexed: deps %v, want %v", got, want)
	}
	a.Index, b.Index, c.Index = 0, 1, 2
	if got := DeployGraph([]*ir.App{a, b, c}).Deps; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("indexed: deps %v, want %v", got, want)
	}
	if got := DeployGraph([]*ir.App{b, c}).Deps; !slices.EqualFunc(got, [][]int{nil, {0}}, slices.Equal) {
		t.Errorf("subset: deps %v, want [[] [0]]", got)
	}
}

// Limits.Fit answers as Group and Slices do, without a search: nil
// while the apps fit, the same error once they do not.
func TestLimitsFit(t *testing.T) {
	lim := Limits{Engine: "E", Workflow: "E workflow", Tasks: 3, Groups: 2}
	for n := range 9 {
		apps := make([]*ir.App, n)
		for i := range apps {
			apps[i] = &ir.App{Name: fmt.Sprint("a", i), Index: i}
		}
		fit := lim.Fit(n)
		for name, lay := range map[string]func(*Graph, Limits) (Grouping, error){"Group": Group, "Slices": Slices} {
			_, err := lay(Independent(apps), lim)
			if (err == nil) != (fit == nil) || err != nil && err.Error() != fit.Error() {
				t.Errorf("%d apps: Fit says %v, %s %v", n, fit, name, err)
			}
		}
		if want := n > 6; (fit != nil) != want {
			t.Errorf("%d apps: Fit says %v, want an error: %v", n, fit, want)
		}
	}
}
