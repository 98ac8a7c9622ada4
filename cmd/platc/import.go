package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/importer"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/report"
)

// importCommand is only the flag wiring; runImport does the work, so the
// command ports to another CLI framework by rewriting this block alone.
func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "turn an existing Argo CD App-of-Apps repository into a platc platform, with a migration report",
		ArgsUsage: "PATH...",
		Description: "Reads the Applications, ApplicationSets, app-of-apps directories, Helm charts, kustomizations\n" +
			"and hook Jobs under PATH, and writes the platform in HCL with the dependencies the evidence\n" +
			"implies (each with its file:line), plus a report of the hooks and sync waves to remove.\n" +
			"Without --out the HCL goes to stdout and the report to stderr. Bad input is reported and\n" +
			"skipped (exit 1); the rest is still imported, and the result always compiles.",
		Flags: []cli.Flag{
			formatFlag("output format", importFormats...),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write platform.hcl, import-report.txt, import-report.json, adopted/ and hooks/ into `DIR` (a new or empty directory)"},
			&cli.StringFlag{Name: "name", Usage: "the platform's name (default: the root Application's, without -root)"},
		},
		ShellComplete: completions{"format": values(importFormats...)}.complete,
		Action: func(_ context.Context, cmd *cli.Command) error {
			format, err := checkFormat(cmd, importFormats...)
			if err != nil {
				return err
			}
			paths := cmd.Args().Slice()
			if len(paths) == 0 {
				return usagef("import needs the PATH of the repository to import: platc import [--out DIR] PATH...")
			}
			return exitWith(runImport(importOptions{paths: paths, format: format, out: cmd.String("out"), name: cmd.String("name")}, cmd.Root().Writer, cmd.Root().ErrWriter))
		},
	}
}

type importOptions struct {
	paths  []string
	format string // hcl or json
	out    string // "" writes the HCL to stdout
	name   string
}

// runImport runs platc import and returns the exit code: 0 when
// everything was imported, 1 when some input was skipped (each skip is
// an error diagnostic; the rest is imported and compiles), 3 when the
// arguments or the input are unusable (nothing could be imported).
func runImport(opts importOptions, stdout, stderr io.Writer) int {
	if opts.out != "" {
		if err := importer.CheckOutDir(opts.out); err != nil {
			fmt.Fprintf(stderr, "platc: %v\n", err)
			return exitcode.Invalid
		}
	}
	res, diags, err := importer.Import(opts.paths, importer.Options{OutDir: opts.out, Name: opts.name})
	if err != nil {
		fmt.Fprintf(stderr, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", err)
		return exitcode.Failure
	}
	var files map[string]*hcl.File
	if res != nil {
		files = res.Files
	}
	if opts.format == "json" {
		doc := importJSON{Diagnostics: report.ToJSON(diags)}
		if res != nil {
			doc.Platform, doc.Report = string(res.HCL), res.Report
			for _, f := range res.Adopted {
				doc.Adopted = append(doc.Adopted, importFileJSON{Path: f.Path, Data: string(f.Data)})
			}
			for _, f := range res.Hooks {
				doc.Hooks = append(doc.Hooks, importFileJSON{Path: f.Path, Data: string(f.Data)})
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(doc)
	} else if len(diags) > 0 {
		_ = report.Text(stderr, files, diags, report.TextOptions{Color: colorFor(stderr)})
		fmt.Fprintf(stderr, "%s\n", report.Summary(diags))
	}
	if res == nil {
		return exitcode.Invalid
	}
	if opts.out != "" {
		written, err := importer.Write(opts.out, res)
		if err != nil {
			fmt.Fprintf(stderr, "platc: writing the import failed: %v. Nothing was written.\n", err)
			return exitcode.Failure
		}
		if opts.format != "json" {
			fmt.Fprintf(stdout, "Wrote %s.\n\n", wroteList(opts.out, written))
			_ = res.Report.WriteText(stdout)
		}
	} else if opts.format != "json" {
		_, _ = stdout.Write(res.HCL)
		fmt.Fprintln(stderr)
		if n := len(res.Adopted) + len(res.Hooks); n > 0 {
			fmt.Fprintf(stderr, "The platform names %d more file(s) (adopted/, hooks/) that only --out DIR writes.\n\n", n)
		}
		_ = res.Report.WriteText(stderr)
	}
	if diags.HasErrors() {
		return exitcode.Failure
	}
	return exitcode.OK
}

type importJSON struct {
	Platform    string            `json:"platform_hcl,omitempty"`
	Report      *importer.Report  `json:"report,omitempty"`
	Adopted     []importFileJSON  `json:"adopted,omitempty"`
	Hooks       []importFileJSON  `json:"hooks,omitempty"`
	Diagnostics report.JSONReport `json:"diagnostics"`
}

type importFileJSON struct {
	Path string `json:"path"`
	Data string `json:"data"`
}

// wroteList names the files written: the platform and the reports, then
// how many files each of adopted/ and hooks/ got.
func wroteList(dir string, written []string) string {
	var names []string
	per := map[string]int{}
	for _, p := range written {
		rel, err := filepath.Rel(dir, p)
		if sub, _, nested := strings.Cut(filepath.ToSlash(rel), "/"); err == nil && nested {
			per[sub]++
			continue
		}
		names = append(names, p)
	}
	for _, sub := range []string{"adopted", "hooks"} {
		if n := per[sub]; n > 0 {
			names = append(names, fmt.Sprintf("%d file(s) under %s", n, filepath.Join(dir, sub)+string(filepath.Separator)))
		}
	}
	return strings.Join(names, ", ")
}
