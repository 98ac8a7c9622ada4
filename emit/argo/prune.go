package argo

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/satmath"
	"github.com/platc/platc/plan"
)

// PruneAction is the platc.io/workflow label of the Workflow Prune
// builds, so it is never taken for a deploy.
const PruneAction = "prune"

// Removed is the Application of an app that is no longer in the
// platform, as its labels and annotations recorded it when it was last
// deployed (emit/argocd's LabelApp and Annotation* names).
type Removed struct {
	App         string // the app's name when it was deployed
	Application string
	Project     string
	// DependsOn are the Application names of the app's dependencies.
	DependsOn []string
	Volumes   ir.VolumePolicy
	Timeout   time.Duration
}

// RemovalOrder sorts removed into the order they must be deleted in:
// an app before every app it depended on, so an app removed together
// with an app that depended on it goes after its dependent. Ties, and
// apps whose records disagree into a cycle, go by Application name.
func RemovalOrder(removed []Removed) []Removed {
	byName := map[string]int{}
	for i, r := range removed {
		byName[r.Application] = i
	}
	// dependents[i] counts the removed apps that depended on removed[i]
	// and are not yet placed: i waits for them.
	dependents := make([]int, len(removed))
	for _, r := range removed {
		for _, d := range slices.Compact(slices.Sorted(slices.Values(r.DependsOn))) {
			if j, ok := byName[d]; ok && d != r.Application {
				dependents[j]++
			}
		}
	}
	idx := make([]int, len(removed))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(removed[a].Application, removed[b].Application) })
	out := make([]Removed, 0, len(removed))
	placed := make([]bool, len(removed))
	for len(out) < len(removed) {
		next := -1
		for _, i := range idx {
			if !placed[i] && dependents[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 { // a cycle in the records: take the first left
			for _, i := range idx {
				if !placed[i] {
					next = i
					break
				}
			}
		}
		placed[next] = true
		out = append(out, removed[next])
		for _, d := range slices.Compact(slices.Sorted(slices.Values(removed[next].DependsOn))) {
			if j, ok := byName[d]; ok && d != removed[next].Application && dependents[j] > 0 {
				dependents[j]--
			}
		}
	}
	return out
}

// Prune builds the Workflow the executor submits, with the operator's
// consent, to delete the Applications of apps that have left p, before
// the rest is deployed. The HCL no longer describes those apps, so
// everything comes from removed, what their Applications recorded. Each
// is deleted by the same delete-and-wait steps as teardown (inlined, as
// in a scoped workflow), with its recorded volume policy and timeout and
// teardown's fixed retry policy, after every removed app that depended
// on it. There is no confirmation step (the consent is the executor's),
// no suspend-parents (the root must go on syncing the rest, and it does
// not re-create an Application whose file has left Git) and no orphan
// report. Like a scoped teardown it declares the parameter volumes, left
// at per-app, and holds the platform's mutex.
func Prune(p *ir.Program, removed []Removed) (*wfv1.Workflow, error) {
	if len(removed) == 0 {
		return nil, fmt.Errorf("nothing to prune")
	}
	order := RemovalOrder(removed)
	apps := make([]*ir.App, len(order))
	byName := map[string]*ir.App{}
	// Built in dependency order (the reverse of the removal order), so
	// plan.DeployGraph sees a topological order and Reversed deletes
	// dependents first.
	for i := range order {
		r := order[len(order)-1-i]
		if p.App(r.App) != nil || slices.ContainsFunc(p.Apps, func(a *ir.App) bool { return a.Application == r.Application }) {
			return nil, fmt.Errorf("Application %s (app %s) is part of the platform, not removed", r.Application, r.App)
		}
		if byName[r.Application] != nil {
			return nil, fmt.Errorf("Application %s is listed twice", r.Application)
		}
		a := &ir.App{Name: r.Application, Index: i, Application: r.Application, Project: r.Project,
			Retry: fixedRetryPolicy, Teardown: ir.Teardown{Volumes: r.Volumes, Timeout: r.Timeout}}
		for _, d := range r.DependsOn {
			if dep := byName[d]; dep != nil && !a.DependsOn(dep) {
				a.Deps = append(a.Deps, ir.Dep{App: dep})
			}
		}
		byName[r.Application] = a
		apps[i] = a
	}
	b := newBuilder(p)
	b.inline = true
	inline := []wfv1.Template{b.deleteAndWait(), b.inspectVolumes(), b.deleteApplication()}
	main := wfv1.Template{Name: tmplMain}
	total := deadlineMargin
	snaps, err := b.snapshotSteps(apps)
	if err != nil {
		return nil, err
	}
	if len(snaps) > 0 {
		// Every snapshot first, as in teardown, the list in chunks as
		// a scoped teardown's.
		main.Steps = append(main.Steps, wfv1.ParallelSteps{Steps: snaps})
		inline = append(inline, b.snapshotVolumes(), b.findClaims(len(apps)), b.snapshotVolume(), b.snapshotVolumeOfClass())
		total = satmath.Add(total, b.snapshotBudget(apps))
	}
	main.Steps = append(main.Steps, steps(tmplApps)...)
	g := plan.DeployGraph(apps).Reversed()
	gr, err := plan.Group(g, limits(MaxTemplates-2-len(inline)))
	if err != nil {
		return nil, err
	}
	spec := b.spec(PruneAction, satmath.Add(b.deadline(g, gr, teardownBudget), total), true)
	spec.Arguments = wfv1.Arguments{Parameters: []wfv1.Parameter{{Name: ParamVolumes, Value: wfv1.AnyStringPtr(VolumesPerApp)}}}
	spec.Templates = append([]wfv1.Template{main}, dag(tmplApps, g, gr, b.deleteTask, nil, continueAfterFailure())...)
	spec.Templates = append(spec.Templates, inline...)
	return checkedSpot(b.workflow(PruneAction, apps, apps, spec))
}
