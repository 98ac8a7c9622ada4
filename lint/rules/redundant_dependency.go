package rules

import (
	"fmt"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
)

// RedundantDependency reports depends_on elements whose edges the graph
// already implies.
var RedundantDependency = &lint.Rule{
	Name: "redundant-dependency",
	Doc: `dependency already implied by another one

An element of depends_on is redundant when every edge it adds is already
there: listed twice, covered by a stack reference, or implied
transitively (harbor depends on postgres-clusters, which depends on
storage-classes, so harbor → storage-classes adds nothing to the order).
Redundant edges make the graph harder to read and to change, and platc
plan draws them all.

Edges from a stack's depends_on count like any other edge. A stack's
element is reported only when it is redundant for every app of the stack,
since only then can it be removed. An app's own element that repeats
what its stack's depends_on already gives is reported on the app.

Remove the element. If the app needs the dependency directly and you want
that on record even while another path implies it, suppress the notice
with the reason; the edge costs nothing at deploy time.`,
	Severity: lint.Notice,
	Default:  true,
	Run: func(p *lint.Pass) error {
		stackRedundant := map[*lang.Stack][]bool{} // per element: redundant for every app so far
		for _, la := range p.Module.Apps {
			a := p.Program.App(la.Name)
			if a == nil {
				continue
			}
			var elems []element
			if la.Stack != nil {
				elems = append(elems, ordered(la.Stack.DependsOn, la.Stack)...)
			}
			elems = append(elems, ordered(la.DependsOn, nil)...)
			covered := map[*ir.App]bool{} // targets of the elements so far
			for k, e := range elems {
				targets := targetsOf(p.Program, e.ref)
				// A resource reference gives its app's edge, but it also
				// adds a wait for the resource, which nothing else gives.
				redundant := len(targets) > 0 && e.ref.Resource == ""
				var why string
				var related []diag.Related
				for _, b := range targets {
					if covered[b] {
						if why == "" {
							why, related = coveredBy(elems[:k], e, b, p.Program)
						}
						continue
					}
					if via := p.Program.ImpliedBy(a, b); via != nil {
						if why == "" {
							why = "is already implied by app." + via.Name
							related = route(p.Program, via, b)
						}
						continue
					}
					redundant = false
				}
				for _, b := range targets {
					covered[b] = true
				}
				if e.stack != nil {
					rs, ok := stackRedundant[e.stack]
					if !ok {
						rs = make([]bool, len(e.stack.DependsOn))
						for i := range rs {
							rs[i] = true
						}
						stackRedundant[e.stack] = rs
					}
					rs[e.pos] = rs[e.pos] && redundant
					continue
				}
				if redundant {
					p.Report(lint.Issue{
						Message: fmt.Sprintf("dependency on %s %s", e.ref, why),
						Detail:  hops(related) + fmt.Sprintf("Removing %s from depends_on leaves the deploy order of app %q unchanged.", e.ref, la.Name),
						Subject: e.ref.Range,
						Related: related,
					})
				}
			}
		}
		for _, st := range p.Module.Stacks {
			rs := stackRedundant[st]
			for i, ok := range rs {
				if !ok {
					continue
				}
				ref := st.DependsOn[i]
				p.Report(lint.Issue{
					Message: fmt.Sprintf("dependency on %s is already implied for every app of stack %q", ref, st.Name),
					Detail:  fmt.Sprintf("Each app of stack %q reaches %s through its other dependencies, so removing %s from the stack's depends_on leaves the deploy order unchanged.", st.Name, ref, ref),
					Subject: ref.Range,
				})
			}
		}
		return nil
	},
}

// hops lists related locations one per line, as the compiler lists the
// hops of a cycle, so text output shows the path too.
func hops(related []diag.Related) string {
	if len(related) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The edge is already there:\n")
	for _, r := range related {
		fmt.Fprintf(&b, "  %s  %s\n", r.Message, diag.At(r.Range))
	}
	return b.String()
}

// element is one depends_on reference; stack is set for references of a
// stack's own depends_on, pos is the index in the list it came from.
type element struct {
	ref   lang.Ref
	stack *lang.Stack
	pos   int
}

// ordered lists references in the order that decides which of two
// equivalent elements is kept: whole-stack references first, since they
// say more, then single apps, each in the order written.
func ordered(refs []lang.Ref, st *lang.Stack) []element {
	var out []element
	for _, kind := range []lang.RefKind{lang.RefStack, lang.RefApp} {
		for i, r := range refs {
			if r.Kind == kind {
				out = append(out, element{ref: r, stack: st, pos: i})
			}
		}
	}
	return out
}

func targetsOf(p *ir.Program, r lang.Ref) []*ir.App {
	if r.Kind == lang.RefApp {
		if a := p.App(r.Name); a != nil {
			return []*ir.App{a}
		}
		return nil
	}
	if s := p.Stack(r.Name); s != nil {
		return s.Apps
	}
	return nil
}

// coveredBy explains which earlier element already gives the edge to b.
func coveredBy(earlier []element, e element, b *ir.App, p *ir.Program) (string, []diag.Related) {
	for _, f := range earlier {
		found := false
		for _, t := range targetsOf(p, f.ref) {
			if t == b {
				found = true
			}
		}
		if !found {
			continue
		}
		rel := []diag.Related{{Range: f.ref.Range, Message: fmt.Sprintf("%s gives the same edge", f.ref)}}
		switch {
		case f.ref == e.ref || (f.ref.Kind == e.ref.Kind && f.ref.Name == e.ref.Name && f.ref.Resource == ""):
			return "is listed twice", rel
		case f.stack != nil && e.stack == nil:
			return fmt.Sprintf("is already given by %s in the depends_on of stack %q", f.ref, f.stack.Name), rel
		default:
			return "is already given by " + f.ref.String(), rel
		}
	}
	return "is already listed", nil
}

// route returns the hops from a to b as related locations, each at the
// depends_on element that created it: the direct edge when there is one,
// otherwise the first dependency that leads on.
func route(p *ir.Program, a, b *ir.App) []diag.Related {
	var out []diag.Related
	for cur := a; cur != b; {
		next := -1
		for i, d := range cur.Deps {
			if d.App == b {
				next = i
				break
			}
			if next < 0 && p.Reaches(d.App, b) {
				next = i
			}
		}
		if next < 0 {
			return out
		}
		d := cur.Deps[next]
		out = append(out, diag.Related{Range: d.Range, Message: fmt.Sprintf("app.%s depends on app.%s", cur.Name, d.App.Name)})
		cur = d.App
	}
	return out
}
