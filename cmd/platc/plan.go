package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/plan"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "show the deploy order: waves, the critical path and the estimated duration",
		ArgsUsage: "[PATH]",
		Description: "--simulate runs the deploy on paper, each app taking its expected duration: the deploy DAG\n" +
			"as emitted (nested beyond 200 apps), the RFC's wave-by-wave model and a serial order, each\n" +
			"with any number of apps at once and with the workflow's parallelism.",
		Flags: []cli.Flag{
			envFlag,
			formatFlag("output format", "text", "json"),
			&cli.BoolFlag{Name: "simulate", Usage: "compare the deploy DAG with the RFC's wave-by-wave model and a serial order"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, "text", "json")
			if err != nil {
				return err
			}
			_, prog, err := compile(cmd, format)
			if err != nil {
				return err
			}
			sched := plan.ASAP(prog)
			var sim *simulation
			if cmd.Bool("simulate") {
				sim = simulate(prog)
			}
			if format == "json" {
				return writePlanJSON(cmd.Root().Writer, prog, sched, sim)
			}
			if sim != nil {
				writeSimulationText(cmd.Root().Writer, prog, sim)
				return nil
			}
			writePlanText(cmd.Root().Writer, prog, sched)
			return nil
		},
	}
}

// human formats a duration the way people write timeouts: "20m", "1h5m",
// "90s" becomes "1m30s".
func human(d time.Duration) string {
	if d == 0 {
		return "0m"
	}
	return ir.FormatDuration(d)
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

func writePlanText(w io.Writer, p *ir.Program, s plan.Schedule) {
	fmt.Fprintf(w, "Platform %q, environment %q: %s in %s, %s, %s.\n", p.Platform.Name, p.Env.Name,
		count(len(p.Apps), "app"), count(len(p.Stacks), "stack"), count(p.EdgeCount(), "dependency"), count(len(p.Waves), "wave"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, wave := range p.Waves {
		fmt.Fprintf(tw, "\nWave %d (%d %s)\n", i, len(wave), pluralize(len(wave), "app"))
		fmt.Fprintf(tw, "  APP\tSTACK\tCLASS\tEXPECTED\tTIMEOUTS (SYNC/HEALTH)\tDEPENDS ON\n")
		for _, a := range wave {
			deps := make([]string, len(a.Deps))
			for k, d := range a.Deps {
				deps[k] = d.App.Name
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s/%s\t%s\n", a.Name, stackName(a), orDash(a.Class),
				human(a.ExpectedDuration), human(a.Timeouts.Sync), human(a.Timeouts.Health), orDash(strings.Join(deps, ", ")))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nCritical path (%d %s, %s):\n", len(s.CriticalPath), pluralize(len(s.CriticalPath), "app"), human(s.Makespan))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, st := range s.CriticalPath {
		fmt.Fprintf(tw, "  %s\t%s\t%s → %s\n", st.App.Name, human(st.App.ExpectedDuration), human(st.Start), human(st.Finish))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nEstimated duration: %s. Each app starts as soon as its own dependencies are healthy, so the critical path is the whole deploy.\n", human(s.Makespan))
	writeGroupingText(w, p)
}

func pluralize(n int, s string) string {
	switch {
	case n == 1:
		return s
	case strings.HasSuffix(s, "y"):
		return strings.TrimSuffix(s, "y") + "ies"
	}
	return s + "s"
}

func count(n int, noun string) string { return fmt.Sprintf("%d %s", n, pluralize(n, noun)) }

type planJSON struct {
	Platform     string         `json:"platform"`
	Environment  string         `json:"environment"`
	Apps         int            `json:"apps"`
	Stacks       int            `json:"stacks"`
	Dependencies int            `json:"dependencies"`
	Waves        [][]string     `json:"waves"`
	CriticalPath []planStepJSON `json:"critical_path"`
	// EstimatedSeconds is the makespan of the deploy DAG.
	EstimatedSeconds float64 `json:"estimated_seconds"`
	// DeployDAG is how the DAG fits Argo's limits (nested beyond 200 apps).
	DeployDAG *deployDAGJSON `json:"deploy_dag"`
	// Simulation is there with --simulate.
	Simulation *simulationJSON `json:"simulation,omitempty"`
}

type planStepJSON struct {
	App           string  `json:"app"`
	StartSeconds  float64 `json:"start_seconds"`
	FinishSeconds float64 `json:"finish_seconds"`
}

func writePlanJSON(w io.Writer, p *ir.Program, s plan.Schedule, sim *simulation) error {
	out := planJSON{
		Platform: p.Platform.Name, Environment: p.Env.Name,
		Apps: len(p.Apps), Stacks: len(p.Stacks), Dependencies: p.EdgeCount(),
		Waves: make([][]string, len(p.Waves)), CriticalPath: []planStepJSON{},
		EstimatedSeconds: s.Makespan.Seconds(),
		DeployDAG:        deployDAG(p),
		Simulation:       sim.json(),
	}
	for i, wave := range p.Waves {
		for _, a := range wave {
			out.Waves[i] = append(out.Waves[i], a.Name)
		}
	}
	for _, st := range s.CriticalPath {
		out.CriticalPath = append(out.CriticalPath, planStepJSON{App: st.App.Name, StartSeconds: st.Start.Seconds(), FinishSeconds: st.Finish.Seconds()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
