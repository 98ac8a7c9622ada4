package main

import (
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/executor/config"
)

func validateCommand() *cli.Command {
	return executorCommand(config.Validate,
		"report the health of every Application in scope (read-only)",
		"validate reads the Argo CD Application of every app in scope and reports its health and\n"+
			"sync status. It changes nothing and is safe to run at any time. Exit codes: 0 healthy,\n"+
			"1 unhealthy (an Application missing or of Unknown health), 2 degraded, 3 invalid\n"+
			"configuration.")
}
