package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/rogpeppe/go-internal/diff"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

func fmtCommand() *cli.Command {
	return &cli.Command{
		Name:      "fmt",
		Usage:     "rewrite platform files in the canonical HCL layout",
		ArgsUsage: "[PATH...]",
		Description: "Each PATH is a .hcl file or a directory whose *.hcl files are formatted: the\n" +
			"files build reads (not recursively; a symbolic link is followed inside the\n" +
			"directory). The default is the current directory, and - reads standard input\n" +
			"and writes the result to standard output. Files that were rewritten are listed.\n" +
			"--check and --diff write nothing. A file with syntax errors is reported and left\n" +
			"alone (exit 3).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Usage: "write nothing; list the files that are not formatted and exit 1 if there are any"},
			&cli.BoolFlag{Name: "diff", Usage: "write nothing; print a unified diff of the changes formatting would make"},
		},
		Action: runFmt,
	}
}

func runFmt(_ context.Context, cmd *cli.Command) error {
	args := cmd.Args().Slice()
	if len(args) == 0 {
		args = []string{"."}
	}
	check, showDiff := cmd.Bool("check"), cmd.Bool("diff")
	var diags hcl.Diagnostics
	files := map[string]*hcl.File{}
	unformatted := 0
	for _, arg := range args {
		if arg == "-" {
			// One byte over the limit is enough for Format to refuse it.
			src, err := io.ReadAll(io.LimitReader(os.Stdin, lang.MaxFileSize+1))
			if err != nil {
				return usagef("cannot read standard input: %v", err)
			}
			out, ds := lang.Format("<stdin>", src)
			if ds.HasErrors() {
				files["<stdin>"] = &hcl.File{Bytes: src}
				diags = append(diags, ds...)
				continue
			}
			if _, err := cmd.Root().Writer.Write(out); err != nil {
				return err
			}
			continue
		}
		names, ds := lang.PlatformFiles(arg)
		for _, d := range ds {
			// The notes on files the platform skips are build's and
			// lint's to give; fmt only formats.
			if d.Severity == hcl.DiagError {
				diags = append(diags, d)
			}
		}
		for _, name := range names {
			src, err := safefile.Read(name, lang.MaxFileSize)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read platform file",
					Detail: fmt.Sprintf("Reading %s failed: %v.", name, safefile.Unwrap(err))})
				continue
			}
			out, ds := lang.Format(name, src)
			if ds.HasErrors() {
				files[name] = &hcl.File{Bytes: src}
				diags = append(diags, ds...)
				continue
			}
			if string(out) == string(src) {
				continue
			}
			unformatted++
			if showDiff {
				slash := filepath.ToSlash(name)
				if _, err := cmd.Root().Writer.Write(unified("a/"+slash, "b/"+slash, src, out)); err != nil {
					return err
				}
			}
			if check && !showDiff {
				fmt.Fprintln(cmd.Root().Writer, name)
			}
			if check || showDiff {
				continue
			}
			if err := writeFileAtomic(name, out); err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot write platform file",
					Detail: fmt.Sprintf("Writing %s failed: %v. The file was left as it was.", name, safefile.Unwrap(err))})
				continue
			}
			fmt.Fprintln(cmd.Root().Writer, name)
		}
	}
	if len(diags) > 0 {
		diags = diag.Sort(diags)
		ew := cmd.Root().ErrWriter
		_ = report.Text(ew, files, diags, report.TextOptions{Color: colorFor(ew)})
		fmt.Fprintf(ew, "%s\n", report.Summary(diags))
		return exitWith(exitcode.Invalid)
	}
	if check && unformatted > 0 {
		return exitWith(exitcode.Failure)
	}
	return nil
}

// writeFileAtomic replaces name with data through a temporary file in the
// same directory, keeping the file's permissions, so an interrupted fmt
// never leaves a half-written platform file.
func writeFileAtomic(name string, data []byte) error {
	// Rewrite what a symlink points to, not the link itself.
	name, err := filepath.EvalSymlinks(name)
	if err != nil {
		return err
	}
	info, err := os.Stat(name)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".platc-fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// unified is the unified diff that turns a into b, as patch -p1 and git
// apply read it: go-internal's anchored diff without its leading
// "diff a b" line, so the output starts at the --- and +++ headers as
// diff -u's does.
func unified(aName, bName string, a, b []byte) []byte {
	d := diff.Diff(aName, a, bName, b)
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return d
}
