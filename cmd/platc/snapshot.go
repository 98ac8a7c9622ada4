package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/english"
)

// snapshotCommand compares two cluster snapshots offline: what a run with
// SNAPSHOT_BASELINE reports, without a cluster.
func snapshotCommand() *cli.Command {
	return &cli.Command{
		Name:  "snapshot",
		Usage: "compare cluster snapshots that deploy, validate and teardown wrote (SNAPSHOT_FILE)",
		Commands: []*cli.Command{{
			Name:      "diff",
			Usage:     "list what changed from OLD to NEW: nodes, namespaces, CRDs, the Argo components, the Applications",
			ArgsUsage: "OLD NEW",
			Flags:     []cli.Flag{&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json (a JSON array of changes)"}},
			Action: func(_ context.Context, cmd *cli.Command) error {
				if cmd.Args().Len() != 2 {
					return usagef("snapshot diff takes two snapshot files, OLD and NEW (got %d arguments)", cmd.Args().Len())
				}
				format := cmd.String("format")
				if format != "text" && format != "json" {
					return usagef("--format %q: use text or json", format)
				}
				var snaps [2]*snapshot.Snapshot
				for i, path := range cmd.Args().Slice() {
					s, err := snapshot.Read(path)
					if err != nil {
						return usagef("%s: %v; name a snapshot file that platc deploy, validate or teardown wrote with SNAPSHOT_FILE", path, err)
					}
					snaps[i] = s
				}
				changes := snapshot.Diff(snaps[0], snaps[1])
				w := cmd.Root().Writer
				if format == "json" {
					if changes == nil {
						changes = []snapshot.Change{}
					}
					enc := json.NewEncoder(w)
					enc.SetEscapeHTML(false)
					enc.SetIndent("", "  ")
					return enc.Encode(changes)
				}
				// A snapshot file is anyone's text: escaped as the
				// executor's logs are, so none can drive the terminal.
				safe := func(s string) string { return strings.Join(strings.Fields(logging.Escape(s)), " ") }
				old, new := snaps[0], snaps[1]
				fmt.Fprintf(w, "%s (%s, taken %s) → %s (%s, taken %s): %s\n", safe(cmd.Args().Get(0)), safe(old.Server), old.TakenAt.UTC().Format("2006-01-02T15:04:05Z"),
					safe(cmd.Args().Get(1)), safe(new.Server), new.TakenAt.UTC().Format("2006-01-02T15:04:05Z"), english.Count(len(changes), "change"))
				for _, c := range changes {
					fmt.Fprintf(w, "  %s\n", safe(c.Text()))
				}
				return nil
			},
		}},
	}
}
