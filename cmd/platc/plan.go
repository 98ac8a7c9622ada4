package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/cmd/platc/internal/planview"
	"github.com/platc/platc/emit/argo"
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
			_, prog, err := compile(cmd, format)
			if err != nil {
				return err
			}
			v := planview.New(prog, argo.Limits, cmd.Bool("simulate"))
			// The deadlines come from the emitter that writes them. A
			// platform that does not fit one workflow has none, and the
			// view already says why.
			d, err := argo.WorkflowDeadlines(prog)
			switch {
			case err == nil:
				v.Deadlines = &planview.Deadlines{Deploy: d.Deploy, Teardown: d.Teardown, Fixed: d.Fixed}
			case v.GroupingErr == nil:
				return fmt.Errorf("workflow deadlines: %w", err)
			}
			if format == "json" {
				return v.WriteJSON(cmd.Root().Writer)
			}
			v.WriteText(cmd.Root().Writer)
			return nil
		},
	}
}
