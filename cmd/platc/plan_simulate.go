package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/plan"
)

// simulation is plan --simulate: the simulated models, and why the deploy
// DAG could not be simulated when it does not fit Argo at all.
type simulation struct {
	plan.Simulation
	waves int
	err   error
}

func simulate(p *ir.Program) *simulation {
	gr, err := argo.DeployGrouping(p)
	if err != nil {
		return &simulation{Simulation: plan.Simulate(p, nil), waves: len(p.Waves), err: err}
	}
	var groups [][]*ir.App
	if gr.Nested() {
		groups = gr.Groups
	}
	return &simulation{Simulation: plan.Simulate(p, groups), waves: len(p.Waves)}
}

func writeSimulationText(w io.Writer, p *ir.Program, sim *simulation) {
	s := sim.Simulation
	fmt.Fprintf(w, "Platform %q, environment %q: %s in %s, %s, %s.\n", p.Platform.Name, p.Env.Name,
		count(len(p.Apps), "app"), count(len(p.Stacks), "stack"), count(p.EdgeCount(), "dependency"), count(len(p.Waves), "wave"))
	fmt.Fprintf(w, "\nSimulated deploy, each app taking its expected duration:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  MODEL\tANY PARALLELISM\tPARALLELISM %d\n", s.Parallelism)
	dag := "deploy DAG, flat"
	if s.Groups > 1 {
		dag = fmt.Sprintf("deploy DAG, nested in %d groups", s.Groups)
	}
	if sim.err != nil {
		fmt.Fprintf(tw, "  %s\t-\t-\n", "deploy DAG")
	} else {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", dag, human(s.DAG.Unlimited), human(s.DAG.Limited))
	}
	fmt.Fprintf(tw, "  RFC 5.3 wave by wave, %s\t%s\t%s\n", count(len(p.Waves), "wave"), human(s.Waves.Unlimited), human(s.Waves.Limited))
	fmt.Fprintf(tw, "  serial, one app at a time\t%s\t%s\n", human(s.Serial.Unlimited), human(s.Serial.Limited))
	tw.Flush()

	cp := s.Schedule
	fmt.Fprintf(w, "\nCritical path (%d %s, %s):\n", len(cp.CriticalPath), pluralize(len(cp.CriticalPath), "app"), human(cp.Makespan))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, st := range cp.CriticalPath {
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\n", st.App.Name, human(st.App.ExpectedDuration), human(st.Start), human(st.Finish))
	}
	tw.Flush()

	fmt.Fprintln(w)
	switch {
	case sim.err != nil:
		fmt.Fprintf(w, "The deploy DAG does not fit one Argo workflow: %v.\n", sim.err)
	case s.DAG.Unlimited == cp.Makespan:
		fmt.Fprintf(w, "The deploy DAG starts each app as soon as its own dependencies are healthy, so it takes exactly the critical path, %s; wave by wave takes %s.\n",
			human(cp.Makespan), human(s.Waves.Unlimited))
	default:
		fmt.Fprintf(w, "Argo Workflows runs at most %d tasks in one DAG, so the deploy DAG is nested in %d groups and a group starts only when the groups it waits for are done: %s, %s more than the critical path; wave by wave takes %s.\n",
			argo.MaxTasks, s.Groups, human(s.DAG.Unlimited), human(s.DAG.Unlimited-cp.Makespan), human(s.Waves.Unlimited))
	}
	if sim.err == nil && s.DAG.Limited > s.DAG.Unlimited {
		fmt.Fprintf(w, "With at most %d apps syncing at once (platform.workflows.parallelism) it takes %s.\n", s.Parallelism, human(s.DAG.Limited))
	}
	fmt.Fprintf(w, "Ready apps start in dependency order when the parallelism is reached; sync polling, pod start-up and retries are not modelled.\n")
}

type simulationJSON struct {
	Parallelism int `json:"parallelism"`
	// CriticalPathSeconds is the length of the critical path: the flat
	// DAG with any parallelism, and a lower bound for every model.
	CriticalPathSeconds float64     `json:"critical_path_seconds"`
	Models              []modelJSON `json:"models"`
	Error               string      `json:"error,omitempty"`
}

type modelJSON struct {
	// Model is "dag", "waves" or "serial".
	Model string `json:"model"`
	// Groups is the deploy DAG's number of groups (1 when flat); Waves the
	// number of waves of the wave model.
	Groups int `json:"groups,omitempty"`
	Waves  int `json:"waves,omitempty"`
	// UnlimitedSeconds is the makespan with any number of apps at once,
	// ParallelismSeconds with the workflow's parallelism.
	UnlimitedSeconds   float64 `json:"unlimited_seconds"`
	ParallelismSeconds float64 `json:"parallelism_seconds"`
}

func (sim *simulation) json() *simulationJSON {
	if sim == nil {
		return nil
	}
	s := sim.Simulation
	out := &simulationJSON{Parallelism: s.Parallelism, CriticalPathSeconds: s.Schedule.Makespan.Seconds()}
	if sim.err != nil {
		out.Error = sim.err.Error()
	} else {
		out.Models = append(out.Models, modelJSON{Model: "dag", Groups: s.Groups, UnlimitedSeconds: s.DAG.Unlimited.Seconds(), ParallelismSeconds: s.DAG.Limited.Seconds()})
	}
	out.Models = append(out.Models,
		modelJSON{Model: "waves", Waves: sim.waves, UnlimitedSeconds: s.Waves.Unlimited.Seconds(), ParallelismSeconds: s.Waves.Limited.Seconds()},
		modelJSON{Model: "serial", UnlimitedSeconds: s.Serial.Unlimited.Seconds(), ParallelismSeconds: s.Serial.Limited.Seconds()},
	)
	return out
}
