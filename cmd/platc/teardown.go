package main

import (
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/executor/config"
)

func teardownCommand() *cli.Command {
	return executorCommand(config.Teardown,
		"remove the platform in reverse dependency order (needs TEARDOWN_CONFIRM=<platform name>)",
		"teardown refuses to run unless TEARDOWN_CONFIRM (or --confirm) equals the platform name.\n"+
			"It runs the teardown workflow, which deletes each Application only after every app that\n"+
			"depends on it is gone, then reports what was removed, which volume claims the volume\n"+
			"policy kept (PV_POLICY: retain by default) and what was left behind. On an already\n"+
			"removed platform it succeeds. Exit codes: 0 clean, 1 failure, 2 orphans remain,\n"+
			"3 invalid configuration or no confirmation, 4 timeout.")
}
