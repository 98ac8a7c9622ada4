package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/emit/write"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/lang"
)

// What build does with its outputs: first refuse an output directory
// behind a symbolic link, then compare with what is on disk (--check) or
// write each environment's directory.

var marks = map[write.Kind]string{write.Added: "+", write.Changed: "~", write.Removed: "-"}

func counts(changes []write.Change) string {
	var n [write.Foreign + 1]int
	for _, ch := range changes {
		n[ch.Kind]++
	}
	return fmt.Sprintf("%d added, %d changed, %d removed", n[write.Added], n[write.Changed], n[write.Removed])
}

// checkLinks refuses, before anything is read or written, an output
// directory that is a symbolic link or lies under one below the output
// root: a link committed to the repository as generated/<env> made the
// build replace the directory it pointed to, outside the repository, and
// delete generated-looking files there (issue 21).
func checkLinks(cmd *cli.Command, mod *lang.Module, outs []output) error {
	var diags hcl.Diagnostics
	for _, o := range outs {
		var le *write.LinkError
		err := write.CheckPath(o.root, o.dir)
		switch {
		case errors.As(err, &le):
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Output directory is a symbolic link",
				Detail: fmt.Sprintf("Environment %q is built into %s, but %s is a symbolic link (to %s), and a build through it would replace the directory it points to and delete files there. Replace the link with a real directory (git rm it), or pass --out the directory you mean.",
					o.env, o.dir, le.Path, le.Target),
				Subject: envSubject(mod, o.env),
			})
		case err != nil:
			return writeError(cmd.Root().ErrWriter, err)
		}
	}
	if len(diags) == 0 {
		return nil
	}
	printDiags(cmd, mod, diags, "text")
	fmt.Fprintln(cmd.Root().ErrWriter, "platc: nothing was written.")
	return exitWith(exitcode.Failure)
}

// envSubject is where the environment's directory is named: its block's
// label, or the platform block for the implicit default environment.
func envSubject(mod *lang.Module, env string) *hcl.Range {
	if mod == nil {
		return nil
	}
	for _, e := range mod.Environments {
		if e.Name == env {
			return e.NameRange.Ptr()
		}
	}
	if mod.Platform != nil {
		return mod.Platform.NameRange.Ptr()
	}
	return nil
}

// check compares every environment's directory with what would be
// generated and writes nothing.
func check(stdout, stderr io.Writer, outs []output) error {
	var all []write.Change
	foreign := 0
	for _, o := range outs {
		changes, err := write.Diff(o.dir, o.files)
		if err != nil {
			return writeError(stderr, err)
		}
		for _, ch := range changes {
			fmt.Fprintf(stdout, "%s: %s\n", filepath.Join(o.dir, filepath.FromSlash(ch.Path)), ch.Kind)
			if ch.Kind == write.Foreign {
				foreign++
			} else {
				all = append(all, ch)
			}
		}
	}
	if len(all) > 0 {
		fmt.Fprintf(stderr, "platc: generated output is stale (%s); run 'platc build' to update it.\n", counts(all))
	}
	if foreign > 0 {
		// A build keeps such files, so only the check can catch them.
		fmt.Fprintf(stderr, "platc: the output holds %s that platc did not generate; Argo CD applies what is under argocd/ and Ansible loads what is under ansible/, so move %s out of the generated tree.\n",
			english.Count(foreign, "file"), english.Agree(foreign, "it", "them"))
	}
	if len(all) > 0 || foreign > 0 {
		return exitWith(exitcode.Failure)
	}
	return nil
}

// writeOutputs writes each environment's directory in one atomic step and
// says what changed.
func writeOutputs(stdout, stderr io.Writer, outs []output) error {
	for _, o := range outs {
		changes, err := write.Write(o.dir, o.files)
		if err != nil {
			return writeError(stderr, err)
		}
		if len(changes) == 0 {
			fmt.Fprintf(stdout, "%s: up to date (%d files)\n", o.dir, len(o.files))
			continue
		}
		fmt.Fprintf(stdout, "%s: %s\n", o.dir, counts(changes))
		for _, ch := range changes {
			fmt.Fprintf(stdout, "  %s %s\n", marks[ch.Kind], ch.Path)
		}
	}
	return nil
}

// writeError reports a failure to read or write the output: the build
// failed (exit 1), and the previous output is as it was.
func writeError(stderr io.Writer, err error) error {
	var conflict *write.ConflictError
	var busy *write.BusyError
	if errors.As(err, &conflict) || errors.As(err, &busy) {
		fmt.Fprintf(stderr, "platc: %v.\n", err)
	} else {
		fmt.Fprintf(stderr, "platc: writing the output failed: %v. The previous output is unchanged.\n", err)
	}
	return exitWith(exitcode.Failure)
}
