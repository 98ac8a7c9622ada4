package argo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
)

// edge is "from -> to": to starts only after from.
type edge struct{ from, to string }

// ordering is what a parsed workflow template enforces: task edges inside
// each DAG, and which group each app task is in, with the group graph.
type ordering struct {
	edges     map[edge]bool     // between app tasks of the same DAG
	group     map[string]string // app task -> group ("" when flat)
	groupDeps map[edge]bool     // between groups
	apps      map[string]string // app task -> Application argument
}

// readOrdering reads a deploy or teardown template back from its parsed
// objects: a flat DAG, a DAG of group templates, or a DAG of child
// workflows, whose templates it finds in wfts.
func readOrdering(t *testing.T, wfts wftGetter, wft *wfv1.WorkflowTemplate, top string) ordering {
	t.Helper()
	byName := map[string]*wfv1.Template{}
	for i := range wft.Spec.Templates {
		byName[wft.Spec.Templates[i].Name] = &wft.Spec.Templates[i]
	}
	root, ok := byName[top]
	if !ok || root.DAG == nil {
		t.Fatalf("%s: no DAG template %q", wft.Name, top)
	}
	deps := func(task wfv1.DAGTask) []string {
		if task.ContinueOn != nil {
			t.Fatalf("%s: task %s has continueOn", wft.Name, task.Name)
		}
		if task.Depends == "" {
			return nil
		}
		if strings.ContainsAny(task.Depends, "|!.()") {
			t.Fatalf("%s: task %s: depends %q is not a plain conjunction of task names", wft.Name, task.Name, task.Depends)
		}
		refs, err := parseDepends(task.Depends)
		if err != nil {
			t.Fatalf("%s: task %s: %v", wft.Name, task.Name, err)
		}
		return refs
	}
	o := ordering{edges: map[edge]bool{}, group: map[string]string{}, groupDeps: map[edge]bool{}, apps: map[string]string{}}
	appTasks := func(tmpl *wfv1.Template, group string) {
		for _, task := range tmpl.DAG.Tasks {
			if _, dup := o.group[task.Name]; dup {
				t.Fatalf("%s: app task %s appears twice", wft.Name, task.Name)
			}
			o.group[task.Name] = group
			for _, d := range deps(task) {
				o.edges[edge{d, task.Name}] = true
			}
			for _, p := range task.Arguments.Parameters {
				if p.Name == "application" {
					o.apps[task.Name] = p.Value.String()
				}
			}
		}
	}
	first := root.DAG.Tasks[0]
	if first.Template == tmplChild {
		for _, g := range root.DAG.Tasks {
			if g.Template != tmplChild || len(g.Arguments.Parameters) != 1 {
				t.Fatalf("%s: task %s of a split workflow does not run one child", wft.Name, g.Name)
			}
			child, err := wfts.Get(g.Arguments.Parameters[0].Value.String())
			if err != nil {
				t.Fatalf("%s: task %s: %v", wft.Name, g.Name, err)
			}
			if child.Spec.Entrypoint != tmplMain || len(child.Spec.Templates) != 1 || child.Spec.Templates[0].DAG == nil {
				t.Fatalf("%s: child %s is not one DAG", wft.Name, child.Name)
			}
			appTasks(&child.Spec.Templates[0], g.Name)
			for _, h := range deps(g) {
				o.groupDeps[edge{h, g.Name}] = true
			}
		}
		return o
	}
	if sub := byName[first.Template]; first.TemplateRef != nil || sub == nil || sub.DAG == nil {
		appTasks(root, "")
		return o
	}
	for _, g := range root.DAG.Tasks {
		appTasks(byName[g.Template], g.Name)
		for _, h := range deps(g) {
			o.groupDeps[edge{h, g.Name}] = true
		}
	}
	return o
}

// enforces reports whether to cannot start before from has finished:
// an edge within one DAG, or a path in the group graph from from's group
// to to's group.
func (o ordering) enforces(from, to string, reach map[edge]bool) bool {
	if o.edges[edge{from, to}] {
		return true
	}
	g, h := o.group[from], o.group[to]
	return g != "" && g != h && reach[edge{g, h}]
}

// acyclic reports whether edges form a DAG (Kahn's algorithm).
func acyclic(edges map[edge]bool) bool {
	indeg := map[string]int{}
	succ := map[string][]string{}
	for e := range edges {
		indeg[e.to]++
		if _, ok := indeg[e.from]; !ok {
			indeg[e.from] = 0
		}
		succ[e.from] = append(succ[e.from], e.to)
	}
	var ready []string
	for n, d := range indeg {
		if d == 0 {
			ready = append(ready, n)
		}
	}
	seen := 0
	for len(ready) > 0 {
		n := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		seen++
		for _, s := range succ[n] {
			if indeg[s]--; indeg[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	return seen == len(indeg)
}

// closure is the transitive closure of edges (used on group graphs, which
// have at most 200 nodes).
func closure(edges map[edge]bool) map[edge]bool {
	succ := map[string][]string{}
	for e := range edges {
		succ[e.from] = append(succ[e.from], e.to)
	}
	out := map[edge]bool{}
	for from := range succ {
		stack := slices.Clone(succ[from])
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if out[edge{from, n}] {
				continue
			}
			out[edge{from, n}] = true
			stack = append(stack, succ[n]...)
		}
	}
	return out
}

func compiledEdges(p *ir.Program) map[edge]bool {
	out := map[edge]bool{}
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			out[edge{d.App.Name, a.Name}] = true
		}
	}
	return out
}

func reverse(edges map[edge]bool) map[edge]bool {
	out := map[edge]bool{}
	for e := range edges {
		out[edge{e.to, e.from}] = true
	}
	return out
}

func diffEdges(want, got map[edge]bool) string {
	var missing, extra []string
	for e := range want {
		if !got[e] {
			missing = append(missing, fmt.Sprintf("%s->%s", e.from, e.to))
		}
	}
	for e := range got {
		if !want[e] {
			extra = append(extra, fmt.Sprintf("%s->%s", e.from, e.to))
		}
	}
	if len(missing)+len(extra) == 0 {
		return ""
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 5 {
		missing = append(missing[:5], "…")
	}
	if len(extra) > 5 {
		extra = append(extra[:5], "…")
	}
	return fmt.Sprintf("missing %v, extra %v", missing, extra)
}

// TestEdgesAreTheGraph parses deploy.yaml and teardown.yaml back into
// Argo's types and proves their ordering is the compiled graph. For a flat
// DAG, deploy's edges are exactly the dependencies and teardown's exactly
// the reverse. For a nested DAG, the edges inside each group are exactly
// the dependencies between its apps, every dependency between apps of
// different groups is enforced by a path in the group graph, and the group
// graph is acyclic (a cycle would deadlock). Every app has exactly one
// task, working on that app's Application.
func TestEdgesAreTheGraph(t *testing.T) {
	for _, pl := range platforms() {
		t.Run(pl.name, func(t *testing.T) {
			bigPlatform(t, pl.opts)
			p := load(t, pl.opts)
			wfts, _ := objects(t, emitFiles(t, p))
			deps := compiledEdges(p)
			for _, c := range []struct {
				name string
				want map[edge]bool
			}{
				{DeployTemplate, deps},
				{TeardownTemplate, reverse(deps)},
			} {
				o := readOrdering(t, wfts, wfts[c.name], tmplApps)
				if len(o.group) != len(p.Apps) {
					t.Errorf("%s: %d app tasks, want %d", c.name, len(o.group), len(p.Apps))
				}
				for _, a := range p.Apps {
					if o.apps[a.Name] != a.Application {
						t.Errorf("%s: task %s works on %q, want %q", c.name, a.Name, o.apps[a.Name], a.Application)
					}
				}
				// Inside DAGs: exactly the dependencies among their apps.
				inside := map[edge]bool{}
				for e := range c.want {
					if o.group[e.from] == o.group[e.to] {
						inside[e] = true
					}
				}
				if d := diffEdges(inside, o.edges); d != "" {
					t.Errorf("%s: task edges differ from the compiled graph: %s", c.name, d)
				}
				if len(o.groupDeps) == 0 {
					continue
				}
				if !acyclic(o.groupDeps) {
					t.Fatalf("%s: the group graph has a cycle", c.name)
				}
				reach := closure(o.groupDeps)
				for e := range c.want {
					if !o.enforces(e.from, e.to, reach) {
						t.Errorf("%s: dependency %s->%s is not enforced", c.name, e.from, e.to)
					}
				}
			}
			if pl.opts != nil && pl.opts.Apps > MaxTasks {
				if o := readOrdering(t, wfts, wfts[DeployTemplate], tmplApps); len(o.groupDeps) == 0 {
					t.Errorf("%d apps but the deploy DAG is not nested", pl.opts.Apps)
				}
			}
		})
	}
}

// RFC 2.2.1: a failure stops exactly its dependents. Argo's default
// failFast would stop scheduling every other task too, so every DAG of
// deploy and teardown, flat or nested, sets it to false; the dependents
// of a failed task are then omitted by their depends alone.
func TestFailureStopsOnlyDependents(t *testing.T) {
	for _, pl := range platforms() {
		t.Run(pl.name, func(t *testing.T) {
			bigPlatform(t, pl.opts)
			wfts, _ := objects(t, emitFiles(t, load(t, pl.opts)))
			for _, name := range []string{DeployTemplate, TeardownTemplate, ValidateTemplate} {
				if _, err := wfts.Get(name); err != nil {
					t.Fatal(err)
				}
			}
			// Parents and the children of a split workflow alike.
			for name, wft := range wfts {
				dags := 0
				for _, tmpl := range wft.Spec.Templates {
					if tmpl.DAG == nil {
						continue
					}
					dags++
					if ff := tmpl.DAG.FailFast; ff == nil || *ff {
						t.Errorf("%s: DAG %s stops scheduling after the first failure (failFast %v)", name, tmpl.Name, ff)
					}
				}
				if dags == 0 {
					t.Errorf("%s: no DAG template", name)
				}
			}
		})
	}
}
