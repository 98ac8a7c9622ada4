package main

import (
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/executor/config"
)

func deployCommand() *cli.Command {
	return executorCommand(config.Deploy,
		"deploy the platform: Phase 0, bootstrap if needed, run the deploy workflow, verify health",
		"deploy compiles the platform source, checks the prerequisites (Phase 0), installs Argo CD\n"+
			"and Argo Workflows with the generated Ansible if they are absent, submits the deploy\n"+
			"workflow and follows it app by app, then checks every Application is Synced and Healthy.\n"+
			"Running it again after a failure continues from the failure; on a healthy platform it\n"+
			"changes nothing. Exit codes: 0 success, 1 failure, 2 partial, 3 invalid configuration,\n"+
			"4 timeout.")
}
