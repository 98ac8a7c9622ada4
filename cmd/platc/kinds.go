package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
)

var kindsFormats = []string{"text", "json"}

func kindsCommand() *cli.Command {
	return &cli.Command{
		Name:      "kinds",
		Usage:     "list the kinds that already have a health check: platc's built-in library and Argo CD's own",
		ArgsUsage: "[TEXT]",
		Description: "A kind listed here needs no health block; one written for it replaces the existing check\n" +
			"(lint: health-rule-shadows-builtin). Argo CD's checks are those of Argo CD " + compiler.ArgoCDHealthVersion + ",\n" +
			"the release platc is tested with; an older Argo CD may lack some. TEXT keeps the kinds that\n" +
			"contain it (any case).",
		Flags:         []cli.Flag{formatFlag("output format", kindsFormats...)},
		ShellComplete: completions{"format": values(kindsFormats...)}.complete,
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, kindsFormats...)
			if err != nil {
				return err
			}
			if cmd.Args().Len() > 1 {
				return usagef("kinds takes at most one TEXT to filter by, such as 'platc kinds kafka'.")
			}
			all, err := compiler.KnownHealthChecks()
			if err != nil {
				return err
			}
			filter := strings.ToLower(cmd.Args().First())
			list := make([]compiler.KnownCheck, 0, len(all))
			for _, k := range all {
				if strings.Contains(strings.ToLower(k.Kind), filter) {
					list = append(list, k)
				}
			}
			w := cmd.Root().Writer
			if format == "json" {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(struct {
					ArgoCDVersion string                `json:"argocd_version"`
					Kinds         []compiler.KnownCheck `json:"kinds"`
				}{compiler.ArgoCDHealthVersion, list})
			}
			if len(list) == 0 {
				fmt.Fprintf(w, "No kind contains %q: a custom resource of such a kind needs a health block (docs/health.md).\n", filter)
				return nil
			}
			width := len("KIND")
			for _, k := range list {
				width = max(width, len(k.Kind))
			}
			fmt.Fprintf(w, "%-*s  %s\n", width, "KIND", "HEALTH CHECK")
			for _, k := range list {
				fmt.Fprintf(w, "%-*s  %s\n", width, k.Kind, checkOf(k))
			}
			return nil
		},
	}
}

// checkOf says which check is in force for k.
func checkOf(k compiler.KnownCheck) string {
	argo := "Argo CD " + compiler.ArgoCDHealthVersion
	if k.Go {
		argo += " (built in, Go)"
	}
	switch {
	case k.Platc && k.ArgoCD:
		return "platc's built-in library, in place of " + argo + "'s"
	case k.Platc:
		return "platc's built-in library"
	}
	return argo
}
