package argo

import (
	"fmt"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/plan"
)

// dag lays out the DAG template called name over g as gr says: one task per
// app (task name = app name, depends = exactly the app's edges in g) in a
// flat DAG, or a DAG of group tasks whose group templates hold the app
// tasks. task builds the task of one app without its name and depends.
// failFast nil keeps Argo's default (stop scheduling after a failure);
// see continueAfterFailure.
//
// An empty graph becomes a suspend template of zero duration: Argo
// rejects a DAG without tasks, and an empty platform still has a deploy.
//
// wait, when set (deploys), builds the task of a resource wait (RFC 5.1
// resource node) without its name and depends: each app with resource
// dependencies then depends on a wait task in its own template too (see
// appTasks).
func dag(name string, g *plan.Graph, gr plan.Grouping, task func(a *ir.App) wfv1.DAGTask, wait func(r *ir.Resource) wfv1.DAGTask, failFast *bool) []wfv1.Template {
	if len(g.Apps) == 0 {
		return []wfv1.Template{{Name: name, Suspend: &wfv1.SuspendTemplate{Duration: "0"}}}
	}
	if !gr.Nested() {
		return []wfv1.Template{{Name: name, DAG: &wfv1.DAGTemplate{Tasks: appTasks(g, gr.Members[0], nil, 0, task, wait), FailFast: failFast}}}
	}
	groupOf := make([]int, len(g.Apps))
	for k, members := range gr.Members {
		for _, i := range members {
			groupOf[i] = k
		}
	}
	names := groupNames(name, len(gr.Members))
	top := wfv1.Template{Name: name, DAG: &wfv1.DAGTemplate{FailFast: failFast}}
	out := []wfv1.Template{{}} // top goes first, filled below
	for k, members := range gr.Members {
		var deps []string
		for _, h := range gr.Waits[k] {
			deps = append(deps, names[h])
		}
		top.DAG.Tasks = append(top.DAG.Tasks, wfv1.DAGTask{Name: names[k], Template: names[k], Depends: strings.Join(deps, " && ")})
		out = append(out, wfv1.Template{Name: names[k], DAG: &wfv1.DAGTemplate{Tasks: appTasks(g, members, groupOf, k, task, wait), FailFast: failFast}})
	}
	out[0] = top
	return out
}

// appTasks are the tasks of the apps members of g, in group k when
// groupOf is set: each depends on its dependencies in the same group.
// With wait set, an app that waits for resources of other apps also
// depends on one wait task per resource, named Resource.TaskName, placed
// before the first app of the template that needs it and shared by the
// others. The wait depends on the resource's app when that app's task is
// in the same template; otherwise the group ordering (or, in a scoped
// deploy, the dependency checks) already put that app first.
func appTasks(g *plan.Graph, members, groupOf []int, k int, task func(a *ir.App) wfv1.DAGTask, wait func(r *ir.Resource) wfv1.DAGTask) []wfv1.DAGTask {
	tasks := make([]wfv1.DAGTask, 0, len(members))
	var here map[*ir.App]bool
	waits := map[*ir.Resource]bool{}
	for _, i := range members {
		a := g.Apps[i]
		t := task(a)
		t.Name = a.Name
		var deps []string
		for _, d := range g.Deps[i] {
			if groupOf == nil || groupOf[d] == k {
				deps = append(deps, g.Apps[d].Name)
			}
		}
		if wait != nil && len(a.ResourceDeps) > 0 {
			if here == nil {
				here = make(map[*ir.App]bool, len(members))
				for _, j := range members {
					here[g.Apps[j]] = true
				}
			}
			for _, rd := range a.ResourceDeps {
				r := rd.Resource
				if !waits[r] {
					waits[r] = true
					w := wait(r)
					w.Name = r.TaskName()
					if here[r.App] {
						w.Depends = r.App.Name
					}
					tasks = append(tasks, w)
				}
				deps = append(deps, r.TaskName())
			}
		}
		t.Depends = strings.Join(deps, " && ")
		tasks = append(tasks, t)
	}
	return tasks
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
