package argo

import (
	"fmt"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
)

// dag lays out the DAG template called name over g as gr says: one task per
// app (task name = app name, depends = exactly the app's edges in g) in a
// flat DAG, or a DAG of group tasks whose group templates hold the app
// tasks. task builds the task of one app without its name and depends.
// failFast nil keeps Argo's default (stop scheduling after a failure).
//
// An empty graph becomes a suspend template of zero duration: Argo
// rejects a DAG without tasks, and an empty platform still has a deploy.
func dag(name string, g *graph, gr Grouping, task func(a *ir.App) wfv1.DAGTask, failFast *bool) []wfv1.Template {
	if len(g.apps) == 0 {
		return []wfv1.Template{{Name: name, Suspend: &wfv1.SuspendTemplate{Duration: "0"}}}
	}
	appTasks := func(members []int, groupOf []int, k int) []wfv1.DAGTask {
		tasks := make([]wfv1.DAGTask, 0, len(members))
		for _, i := range members {
			t := task(g.apps[i])
			t.Name = g.apps[i].Name
			var deps []string
			for _, d := range g.deps[i] {
				if groupOf == nil || groupOf[d] == k {
					deps = append(deps, g.apps[d].Name)
				}
			}
			t.Depends = strings.Join(deps, " && ")
			tasks = append(tasks, t)
		}
		return tasks
	}
	if !gr.Nested() {
		return []wfv1.Template{{Name: name, DAG: &wfv1.DAGTemplate{Tasks: appTasks(gr.groups[0], nil, 0), FailFast: failFast}}}
	}
	groupOf := make([]int, len(g.apps))
	for k, members := range gr.groups {
		for _, i := range members {
			groupOf[i] = k
		}
	}
	names := groupNames(name, len(gr.groups))
	top := wfv1.Template{Name: name, DAG: &wfv1.DAGTemplate{FailFast: failFast}}
	out := []wfv1.Template{{}} // top goes first, filled below
	for k, members := range gr.groups {
		var deps []string
		for _, h := range gr.groupDeps[k] {
			deps = append(deps, names[h])
		}
		top.DAG.Tasks = append(top.DAG.Tasks, wfv1.DAGTask{Name: names[k], Template: names[k], Depends: strings.Join(deps, " && ")})
		out = append(out, wfv1.Template{Name: names[k], DAG: &wfv1.DAGTemplate{Tasks: appTasks(members, groupOf, k), FailFast: failFast}})
	}
	out[0] = top
	return out
}

// groupNames are name-01, name-02, …, zero-padded so they sort in order.
// They cannot collide with app names: tasks of the top DAG are only
// groups, and group templates share no namespace with app tasks.
func groupNames(name string, n int) []string {
	width := max(len(fmt.Sprint(n)), 2)
	out := make([]string, n)
	for k := range out {
		out[k] = fmt.Sprintf("%s-%0*d", name, width, k+1)
	}
	return out
}

// flatChecks is a DAG of independent tasks, one per app (validate, and the
// dependency checks of a scoped deploy), in groups of at most MaxTasks.
func flatChecks(apps []*ir.App, maxGroups int) (*graph, Grouping, error) {
	g := &graph{apps: apps, deps: make([][]int, len(apps))}
	all := make([]int, len(apps))
	for i := range all {
		all[i] = i
	}
	if len(apps) <= MaxTasks {
		gr, _ := finish(g, [][]int{all}, "flat")
		return g, gr, nil
	}
	k := (len(apps) + MaxTasks - 1) / MaxTasks
	if k > min(maxGroups, MaxTasks) {
		return nil, Grouping{}, fmt.Errorf("%d apps do not fit in one Argo workflow: at most %d groups of %d tasks", len(apps), min(maxGroups, MaxTasks), MaxTasks)
	}
	gr, _ := finish(g, cut(all, k), "slices")
	return g, gr, nil
}
