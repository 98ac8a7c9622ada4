package planview

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/plan"
)

// WriteText writes the plan for people: the simulation with --simulate,
// otherwise the waves, the critical path and the estimate.
func (v *View) WriteText(w io.Writer) {
	if v.Simulation != nil {
		v.writeSimulation(w)
		return
	}
	p, s := v.Program, v.Schedule
	v.writeHeader(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, wave := range p.Waves {
		fmt.Fprintf(tw, "\nWave %d (%s)\n", i, english.Count(len(wave), "app"))
		fmt.Fprintf(tw, "  APP\tSTACK\tCLASS\tEXPECTED\tTIMEOUTS (SYNC/HEALTH)\tDEPENDS ON\n")
		for _, a := range wave {
			deps := make([]string, len(a.Deps))
			for k, d := range a.Deps {
				deps[k] = d.App.Name
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s/%s\t%s\n", a.Name, stackName(a), orDash(a.Class),
				Human(a.ExpectedDuration), Human(a.Timeouts.Sync), Human(a.Timeouts.Health), orDash(strings.Join(deps, ", ")))
		}
		tw.Flush()
	}
	writeResourceWaits(w, p)
	writeCriticalPath(w, s)
	fmt.Fprintf(w, "\nEstimated duration: %s. Each app starts as soon as its own dependencies are healthy, so the critical path is the whole deploy.\n", Human(s.Makespan))
	v.writeGrouping(w)
	v.writeWorkflows(w)
	v.writeRoots(w)
	v.writeDeadlines(w)
}

// writeRoots lists the group roots of a platform too large for one root.
func (v *View) writeRoots(w io.Writer) {
	if len(v.Roots) == 0 {
		return
	}
	fmt.Fprintf(w, "\nApplications (at most %d per app-of-apps, platform.argocd.applications_per_root): the root holds %s:\n",
		v.Program.Platform.ArgoCD.AppsPerRoot, english.Count(len(v.Roots), "group root"))
	for i, r := range v.Roots {
		if i == textChildren {
			fmt.Fprintf(w, "  … and %d more (platc plan --format json lists them all)\n", len(v.Roots)-i)
			break
		}
		fmt.Fprintf(w, "  %s: %s\n", r.Name, english.Count(len(r.Apps), "app"))
	}
}

// textChildren is how many children of a split workflow the text lists
// by name; JSON lists them all.
const textChildren = 6

// writeWorkflows says how many Workflows each of deploy, teardown and
// validate is, their nodes against the budget, and the largest object.
func (v *View) writeWorkflows(w io.Writer) {
	wf := v.Workflows
	if wf == nil {
		return
	}
	fmt.Fprintf(w, "\nWorkflows (node budget %d per Workflow; largest object %s, %s of JSON, limit 1 MiB):\n", wf.Budget, wf.Largest, kb(wf.LargestBytes))
	for _, l := range wf.Layouts {
		if len(l.Children) == 0 {
			fmt.Fprintf(w, "  %s: 1 workflow, %s.\n", l.Name, english.Count(l.Nodes, "node"))
			continue
		}
		most := 0
		for _, c := range l.Children {
			most = max(most, c.Nodes)
		}
		fmt.Fprintf(w, "  %s: %s, a parent of %s nodes and %s of at most %s nodes:\n", l.Name,
			english.Count(1+len(l.Children), "workflow"), fmt.Sprint(l.Nodes), english.Count(len(l.Children), "child workflow"), fmt.Sprint(most))
		for i, c := range l.Children {
			if i == textChildren {
				fmt.Fprintf(w, "    … and %d more (platc plan --format json lists them all)\n", len(l.Children)-i)
				break
			}
			if c.Snapshots {
				fmt.Fprintf(w, "    %s: snapshots, %s, before the first deletion\n", c.Name, english.Count(c.Nodes, "node"))
				continue
			}
			waits := "nothing"
			if len(c.Waits) > 0 {
				waits = strings.Join(c.Waits, ", ")
			}
			fmt.Fprintf(w, "    %s: %s, %s, after %s\n", c.Name, english.Count(len(c.Apps), "app"), english.Count(c.Nodes, "node"), waits)
		}
	}
}

// kb formats bytes as kilobytes (1,000 bytes), rounded up.
func kb(n int) string {
	return fmt.Sprintf("%d KB", (n+999)/1000)
}

// writeDeadlines says when the workflows give up: the numbers a stuck
// run holds the platform's lock for.
func (v *View) writeDeadlines(w io.Writer) {
	d := v.Deadlines
	if d == nil {
		return
	}
	why := "one dependency chain with each app using its timeouts and retries, plus the other apps' expected work shared by the workflow's parallelism"
	if d.Fixed {
		why = "platform.workflows.timeout"
	}
	fmt.Fprintf(w, "Deadlines: deploy %s, teardown %s (%s).\n", Human(d.Deploy), Human(d.Teardown), why)
}

func (v *View) writeHeader(w io.Writer) {
	p := v.Program
	fmt.Fprintf(w, "Platform %q, environment %q: %s in %s, %s, %s.\n", p.Platform.Name, p.Env.Name,
		english.Count(len(p.Apps), "app"), english.Count(len(p.Stacks), "stack"), english.Count(p.EdgeCount(), "dependency"), english.Count(len(p.Waves), "wave"))
}

// writeResourceWaits lists the wait steps of resource dependencies (RFC
// 5.1 resource nodes), when there are any: each runs after its resource's
// app is Healthy and before the apps that wait for it.
func writeResourceWaits(w io.Writer, p *ir.Program) {
	var lines []string
	for _, a := range p.Apps {
		for _, rd := range a.ResourceDeps {
			r := rd.Resource
			id := r.ResourceName
			if r.Namespace != "" {
				id = r.Namespace + "/" + id
			}
			what := "must be Healthy"
			if r.Wait == ir.WaitExists {
				what = "must exist"
			}
			lines = append(lines, fmt.Sprintf("  %s\twaits for %s\t%s %s\t%s, within %s\n", a.Name, r.Ref(), r.KindKey(), id, what, Human(r.Timeout)))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\nResource waits (%s, each a step after its app is Healthy):\n", english.Count(len(lines), "wait"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range lines {
		fmt.Fprint(tw, l)
	}
	tw.Flush()
}

func writeCriticalPath(w io.Writer, s plan.Schedule) {
	fmt.Fprintf(w, "\nCritical path (%s, %s):\n", english.Count(len(s.CriticalPath), "app"), Human(s.Makespan))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, st := range s.CriticalPath {
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\n", st.App.Name, Human(st.App.ExpectedDuration), Human(st.Start), Human(st.Finish))
	}
	tw.Flush()
}

// writeGrouping says, only when the limits force the deploy DAG to be
// nested, how it was split and what the split costs.
func (v *View) writeGrouping(w io.Writer) {
	gr := v.Grouping
	if v.GroupingErr != nil {
		fmt.Fprintf(w, "\nThe deploy DAG does not fit one %s: %v.\n", v.Limits.Workflow, v.GroupingErr)
		return
	}
	if !gr.Nested() {
		return
	}
	lost := gr.Makespan - gr.Ungrouped
	pct := 0.0
	if gr.Ungrouped > 0 {
		pct = 100 * lost.Seconds() / gr.Ungrouped.Seconds()
	}
	fmt.Fprintf(w, "\n%s runs at most %d tasks in one DAG, so the deploy DAG of %d apps is nested: %d groups (%s), each waiting for the groups its apps depend on.\n",
		v.Limits.Engine, v.Limits.Tasks, len(v.Program.Apps), len(gr.Groups), gr.Strategy)
	fmt.Fprintf(w, "Estimated duration as nested: %s, %s (%.1f%%) more than the flat DAG's %s.\n", Human(gr.Makespan), Human(lost), pct, Human(gr.Ungrouped))
}

func (v *View) writeSimulation(w io.Writer) {
	p, s := v.Program, *v.Simulation
	v.writeHeader(w)
	fmt.Fprintf(w, "\nSimulated deploy, each app taking its expected duration:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  MODEL\tANY PARALLELISM\tPARALLELISM %d\n", s.Parallelism)
	dag := "deploy DAG, flat"
	if s.Groups > 1 {
		dag = fmt.Sprintf("deploy DAG, nested in %d groups", s.Groups)
	}
	if v.SplitDeploy > 0 {
		dag = fmt.Sprintf("deploy, split into %d child workflows", v.SplitDeploy)
	}
	if v.GroupingErr != nil {
		fmt.Fprintf(tw, "  %s\t-\t-\n", "deploy DAG")
	} else {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", dag, Human(s.DAG.Unlimited), Human(s.DAG.Limited))
	}
	fmt.Fprintf(tw, "  RFC 5.3 wave by wave, %s\t%s\t%s\n", english.Count(len(p.Waves), "wave"), Human(s.Waves.Unlimited), Human(s.Waves.Limited))
	fmt.Fprintf(tw, "  serial, one app at a time\t%s\t%s\n", Human(s.Serial.Unlimited), Human(s.Serial.Limited))
	tw.Flush()

	cp := s.Schedule
	writeCriticalPath(w, cp)
	fmt.Fprintln(w)
	switch {
	case v.GroupingErr != nil:
		fmt.Fprintf(w, "The deploy DAG does not fit one %s: %v.\n", v.Limits.Workflow, v.GroupingErr)
	case v.SplitDeploy > 0:
		// The split's cost on paper: what waiting for whole children
		// adds to the critical path.
		fmt.Fprintf(w, "The deploy is split into %d child workflows to stay within the node budget, and a child starts only when the children it waits for are done: %s, %s more than the critical path (the split's cost on paper); wave by wave takes %s.\n",
			v.SplitDeploy, Human(s.DAG.Unlimited), Human(s.DAG.Unlimited-cp.Makespan), Human(s.Waves.Unlimited))
	case s.DAG.Unlimited == cp.Makespan:
		fmt.Fprintf(w, "The deploy DAG starts each app as soon as its own dependencies are healthy, so it takes exactly the critical path, %s; wave by wave takes %s.\n",
			Human(cp.Makespan), Human(s.Waves.Unlimited))
	default:
		fmt.Fprintf(w, "%s runs at most %d tasks in one DAG, so the deploy DAG is nested in %d groups and a group starts only when the groups it waits for are done: %s, %s more than the critical path; wave by wave takes %s.\n",
			v.Limits.Engine, v.Limits.Tasks, s.Groups, Human(s.DAG.Unlimited), Human(s.DAG.Unlimited-cp.Makespan), Human(s.Waves.Unlimited))
	}
	if v.GroupingErr == nil && s.DAG.Limited > s.DAG.Unlimited {
		fmt.Fprintf(w, "With at most %d apps syncing at once (platform.workflows.parallelism) it takes %s; %d at once would take %s.\n",
			s.Parallelism, Human(s.DAG.Limited), s.Enough, Human(s.DAG.Unlimited))
		if v.SplitDeploy > 0 {
			fmt.Fprintf(w, "The parallelism applies to each child workflow; children that run at once may each run that many, so this figure is an upper bound.\n")
		}
	}
	fmt.Fprintf(w, "Ready apps start in dependency order when the parallelism is reached; sync polling, pod start-up and retries are not modelled.\n")
}

func stackName(a *ir.App) string {
	if a.Stack == nil {
		return "-"
	}
	return a.Stack.Name
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
