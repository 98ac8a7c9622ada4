package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/step"
)

// stepCommand is what the generated workflow steps run in platc's image
// (package step). Every value comes from the environment the template
// sets, as the step scripts' did, never from arguments.
func stepCommand() *cli.Command {
	return &cli.Command{
		Name:      "step",
		Usage:     "run one generated workflow step (inside a workflow pod): sync-and-wait or wait-resource",
		ArgsUsage: "STEP",
		Description: "sync-and-wait converges one Argo CD Application through the Argo CD API server and\n" +
			"waits until it is Synced and Healthy (docs/workflows.md, Steps). It reads APP,\n" +
			"EXPECT_REVISION, SYNC_TIMEOUT, HEALTH_TIMEOUT, AUTO_SYNC, SELF_HEAL, PRUNE and the\n" +
			"connection (ARGOCD_SERVER, ARGOCD_AUTH_TOKEN, ARGOCD_OPTS) from the environment.\n" +
			"wait-resource waits until one resource of an Application's resource tree exists and,\n" +
			"with WAIT=healthy, is Healthy (a resource node, docs/language.md, resource). It reads\n" +
			"APP, GROUP, KIND, NAME, NAMESPACE, WAIT and TIMEOUT, and the same connection.\n" +
			"Exit 0: done; 10: a failure a retry cannot fix; 1: any other failure.",
		Action: func(ctx context.Context, cmd *cli.Command) error {
			name := cmd.Args().First()
			if cmd.Args().Len() != 1 || name != "sync-and-wait" && name != "wait-resource" {
				return usagef("step takes one step name: sync-and-wait or wait-resource")
			}
			stdout := cmd.Root().Writer
			cfg, err := step.ConfigFromEnv(os.Getenv)
			if err == nil {
				// The kubelet stops a pod with SIGTERM.
				ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
				defer stop()
				if name == "wait-resource" {
					var in step.ResourceInput
					if in, err = step.ResourceInputFromEnv(os.Getenv); err == nil {
						return exitWith(step.WaitResource(ctx, step.NewClient(cfg), in, stdout))
					}
				} else {
					var in step.SyncInput
					if in, err = step.SyncInputFromEnv(os.Getenv); err == nil {
						return exitWith(step.SyncAndWait(ctx, step.NewClient(cfg), in, stdout))
					}
				}
			}
			// A template platc generated always sets these: a retry
			// would fail the same way.
			fmt.Fprintf(cmd.Root().ErrWriter, "platc step %s: %v\n", name, err)
			return exitWith(step.ExitNotRetried)
		},
	}
}
