package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print platc's version",
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("version takes no arguments")
			}
			fmt.Fprintf(c.App.Writer, "platc %s (%s, %s/%s)\n", platcVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
