package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/cmd/platc/internal/planview"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/internal/exitcode"
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
			formatFlag("output format", planFormats...),
			&cli.BoolFlag{Name: "simulate", Usage: "compare the deploy DAG with the RFC's wave-by-wave model and a serial order"},
		},
		ShellComplete: completions{"format": values(planFormats...)}.complete,
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, planFormats...)
			if err != nil {
				return err
			}
			mod, prog, err := compile(cmd, format)
			if err != nil {
				return err
			}
			v := planview.New(prog, argo.Limits, cmd.Bool("simulate"))
			// The deadlines come from the emitter that writes them. A
			// platform that does not fit one workflow has none, and the
			// view already says why.
			d, err := argo.WorkflowDeadlines(prog)
			// A platform past a real limit is a diagnostic here as in build.
			var le *argo.LimitError
			if errors.As(err, &le) {
				printDiags(cmd, mod, hcl.Diagnostics{diag.Error(prog.Platform.DeclRange, le.Summary, le.Detail)}, format)
				return exitWith(exitcode.Invalid)
			}
			switch {
			case err == nil:
				v.Deadlines = &planview.Deadlines{Deploy: d.Deploy, Teardown: d.Teardown, Fixed: d.Fixed}
			case v.GroupingErr == nil:
				return fmt.Errorf("workflow deadlines: %w", err)
			}
			// The layout within the node budget, also from the emitter.
			if o, err := argo.Build(prog); err == nil {
				layouts, kind, name, bytes, err := o.Layouts()
				if err != nil {
					return fmt.Errorf("workflow layout: %w", err)
				}
				wf := &planview.Workflows{Budget: prog.Platform.Workflows.NodeBudget, Largest: kind + " " + name, LargestBytes: bytes}
				for _, l := range layouts {
					pl := planview.Layout{Name: l.Name, Nodes: l.Nodes}
					for _, c := range l.Children {
						pl.Children = append(pl.Children, planview.Child{Name: c.Name, Apps: c.Apps, Nodes: c.Nodes, Waits: c.Waits, Snapshots: c.Snapshots})
					}
					wf.Layouts = append(wf.Layouts, pl)
				}
				v.Workflows = wf
				if groups := argo.SplitGroups(prog, o); groups != nil {
					v.SimulateSplit(groups)
				}
			}
			for _, g := range argocd.GroupRootLayout(prog) {
				v.Roots = append(v.Roots, planview.Root{Name: g.Name, Apps: g.Apps})
			}
			if format == "json" {
				return v.WriteJSON(cmd.Root().Writer)
			}
			v.WriteText(cmd.Root().Writer)
			return nil
		},
	}
}
