// Package planview is what platc plan prints: the waves, the critical
// path, the cost of fitting the deploy DAG into the orchestrator's limits
// and, with --simulate, the simulated models, as text or JSON. Every
// figure comes from package plan, computed once per command; this
// package only lays it out.
//
// It knows no orchestrator: the command passes the limits emit/argo
// builds its workflows within, as numbers (plan.Limits), so the plan
// command does not depend on an emitter.
package planview

import (
	"time"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/plan"
)

// A View is one environment's plan.
type View struct {
	Program  *ir.Program
	Limits   plan.Limits
	Schedule plan.Schedule
	// Grouping is the deploy DAG's layout; GroupingErr says why there is
	// none (the platform does not fit one workflow).
	Grouping    plan.Grouping
	GroupingErr error
	// Simulation is set with --simulate.
	Simulation *plan.Simulation
	// Deadlines are the workflows' own, as the emitter writes them; the
	// command passes them in, so this package imports no emitter. Nil
	// when the workflows cannot be built.
	Deadlines *Deadlines
	// SplitDeploy is how many child workflows the emitter splits deploy
	// into within the node budget (0: one Workflow); with --simulate the
	// deploy DAG is then simulated as that split (SimulateSplit).
	SplitDeploy int
	// Workflows is how the emitter lays out deploy, teardown and
	// validate within the node budget; passed in like Deadlines. Nil when
	// the workflows cannot be built.
	Workflows *Workflows
	// Roots are the group roots between the root app-of-apps and the
	// apps' Applications (argocd.applications_per_root), passed in like
	// Workflows; nil when the root holds them all.
	Roots []Root
}

// A Root is one group root and the apps whose Applications it holds.
type Root struct {
	Name string
	Apps []string
}

// Workflows are the Workflows the emitter writes and their sizes.
type Workflows struct {
	// Budget is the node budget (platform.workflows.node_budget).
	Budget int
	// Layouts are deploy, teardown and validate, in that order.
	Layouts []Layout
	// Largest is the largest object emitted, as "Kind name", and its
	// bytes as JSON.
	Largest      string
	LargestBytes int
}

// A Layout is one workflow: alone (no Children), or the parent of child
// workflows, one per group.
type Layout struct {
	Name     string
	Nodes    int
	Children []Child
}

// A Child is one child workflow.
type Child struct {
	Name  string
	Apps  []string
	Nodes int
	Waits []string
	// Snapshots: a teardown's snapshot child, which holds no app.
	Snapshots bool
}

// Deadlines are the longest the deploy and teardown workflows may run
// (their activeDeadlineSeconds).
type Deadlines struct {
	Deploy, Teardown time.Duration
	// Fixed: platform.workflows.timeout sets them.
	Fixed bool
}

// New plans p within lim; simulate also runs the deploy on paper.
func New(p *ir.Program, lim plan.Limits, simulate bool) *View {
	v := &View{Program: p, Limits: lim, Schedule: plan.ASAP(p)}
	v.Grouping, v.GroupingErr = plan.DeployGrouping(p, lim)
	if simulate {
		var groups [][]*ir.App
		if v.GroupingErr == nil && v.Grouping.Nested() {
			groups = v.Grouping.Groups
		}
		s := plan.Simulate(p, groups)
		v.Simulation = &s
	}
	return v
}

// SimulateSplit simulates the deploy as the emitter splits it: groups
// are the apps of each child workflow, children after those they wait
// for. The Argo DAG nesting New simulated is not what runs then.
func (v *View) SimulateSplit(groups [][]*ir.App) {
	v.SplitDeploy = len(groups)
	if v.Simulation != nil {
		s := plan.Simulate(v.Program, groups)
		v.Simulation = &s
	}
}

// Human formats a duration as platc's tables show it: as the platform
// language writes durations ("20m", "1h5m", "1m30s"), and zero as "0m",
// which lines up with the minutes around it.
func Human(d time.Duration) string {
	if d == 0 {
		return "0m"
	}
	return ir.FormatDuration(d)
}
