package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/urfave/cli/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/write"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/parallel"
	"github.com/platc/platc/lang"
)

func buildCommand() *cli.Command {
	return &cli.Command{
		Name:      "build",
		Usage:     "generate every environment's output into <out>/<env>/ (or, with --check, report what is stale)",
		ArgsUsage: "[PATH]",
		Description: "The output directory is --out, or else platform.git.path (default \"generated\") in the\n" +
			"Git work tree that holds the platform (the current directory outside Git). Each\n" +
			"environment's directory is replaced in one atomic step; only files that start with\n" +
			"platc's \"Code generated\" header are ever written or removed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "env", Usage: "build only this environment (default: every environment)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output directory (default: platform.git.path in the platform's Git work tree)"},
			&cli.BoolFlag{Name: "check", Usage: "write nothing; exit 1 with a per-file summary when the output on disk is stale"},
		},
		Action: func(_ context.Context, cmd *cli.Command) error {
			path, err := pathArg(cmd)
			if err != nil {
				return err
			}
			mod, progs, err := compileForBuild(cmd, path)
			if err != nil {
				return err
			}
			outs, err := outputs(cmd, path, progs)
			if err != nil {
				return err
			}
			if err := checkLinks(cmd, mod, outs); err != nil {
				return err
			}
			if cmd.Bool("check") {
				return check(cmd.Root().Writer, cmd.Root().ErrWriter, outs)
			}
			return writeOutputs(cmd.Root().Writer, cmd.Root().ErrWriter, outs)
		},
	}
}

// compileForBuild compiles every environment, or only --env, printing
// diagnostics; errors end the build with exit 3 before anything is
// generated.
func compileForBuild(cmd *cli.Command, path string) (*lang.Module, []*ir.Program, error) {
	mod, diags := lang.Parse(path)
	var progs []*ir.Program
	if !diags.HasErrors() {
		var cdiags hcl.Diagnostics
		if env := cmd.String("env"); env != "" {
			var p *ir.Program
			p, cdiags = compiler.Compile(mod, compiler.Options{Env: env, Generator: generator(), Checkout: compiler.FindCheckout(mod.Dir)})
			if p != nil {
				progs = []*ir.Program{p}
			}
		} else {
			progs, cdiags = compiler.CompileAll(mod, compiler.Options{Generator: generator(), Checkout: compiler.FindCheckout(mod.Dir)})
		}
		diags = append(diags, cdiags...)
	}
	var findings hcl.Diagnostics
	if !diags.HasErrors() {
		findings = blockingFindings(mod, progs, cmd.Root().ErrWriter)
		diags = append(diags, findings...)
	}
	if !diags.HasErrors() {
		diags = append(diags, outPathDiags(cmd.String("out"), path, mod, progs)...)
	}
	diags = diag.Sort(diags)
	printDiags(cmd, mod, diags, "text")
	switch {
	case findings.HasErrors():
		fmt.Fprintf(cmd.Root().ErrWriter, "platc: %s that platc lint reports as errors; nothing was written.\n", blockedBy(findings))
		return nil, nil, exitWith(exitcode.Failure)
	case diags.HasErrors():
		return nil, nil, exitWith(exitcode.Invalid)
	}
	return mod, progs, nil
}

// blockedBy says what stopped a build, naming the rules.
func blockedBy(findings hcl.Diagnostics) string {
	var names []string
	seen := map[string]bool{}
	for _, d := range findings {
		if e := diag.ExtraOf(d); e != nil && e.Rule != "" && !seen[e.Rule] {
			seen[e.Rule] = true
			names = append(names, e.Rule)
		}
	}
	if len(names) == 0 {
		return "the platform has findings"
	}
	slices.Sort(names)
	return fmt.Sprintf("the platform has findings (%s)", english.List(names))
}

// output is one environment's generated files and where they go.
type output struct {
	env string
	dir string
	// root is the directory dir is under that the user chose: --out, or
	// the Git work tree (git.path and the environment come from HCL).
	root  string
	files []emit.File
}

// outputs runs every emitter for every program. The emitters only read
// the programs, so they run concurrently, one per CPU; the files are
// sorted afterwards and the first failure in order is the one reported,
// so the result does not depend on scheduling.
func outputs(cmd *cli.Command, path string, progs []*ir.Program) ([]output, error) {
	outs := make([]output, len(progs))
	for i, p := range progs {
		dir, err := outDir(cmd.String("out"), path, p)
		if err != nil {
			return nil, err
		}
		root := cmd.String("out")
		if root == "" {
			root = repoRoot(path)
		}
		outs[i] = output{env: p.Env.Name, dir: dir, root: root}
	}
	// A default step image that is not published is worth a warning, not
	// a failure: the output is still what this platc generates.
	warned := map[string]bool{}
	for _, p := range progs {
		if _, w := argo.StepImage(p); w != "" && !warned[w] {
			warned[w] = true
			fmt.Fprintf(cmd.Root().ErrWriter, "platc: warning: %s.\n", w)
		}
	}
	errs := make([]error, len(progs))
	parallel.Do(len(progs), func(i int) { outs[i].files, errs[i] = all.Emit(progs[i]) })
	for _, err := range errs {
		if err != nil {
			fmt.Fprintf(cmd.Root().ErrWriter, "platc: internal error: %v\nThis is a bug in platc; please report it with the input that caused it.\n", err)
			return nil, exitWith(exitcode.Failure)
		}
	}
	return outs, nil
}

// outDir is <out>/<env>: --out, or platform.git.path taken relative to
// the root of the Git work tree holding the platform, since it names a
// directory of that repository (the root app points Argo CD at it).
// Outside a Git work tree it is relative to the platform's directory, so
// the result never depends on where platc runs from.
func outDir(flag, platformPath string, p *ir.Program) (string, error) {
	if flag != "" {
		return filepath.Join(flag, p.Env.Name), nil
	}
	// The compiler keeps git.path a clean relative path (grammar.go).
	return filepath.Join(repoRoot(platformPath), filepath.FromSlash(p.Platform.Git.Path), p.Env.Name), nil
}

// repoRoot is the nearest directory at or above the platform that holds
// .git (a directory, or a file in a linked work tree), or the platform's
// own directory when there is none.
func repoRoot(platformPath string) string {
	root, _ := gitRoot(platformPath)
	return relToCwd(root)
}

// gitRoot is the absolute path of the Git work tree that holds the
// platform, and true; or the platform's own directory and false.
func gitRoot(platformPath string) (string, bool) {
	start, err := filepath.Abs(platformPath)
	if err != nil {
		return filepath.Dir(platformPath), false
	}
	if info, err := os.Stat(start); err == nil && !info.IsDir() {
		start = filepath.Dir(start)
	}
	for dir := start; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return start, false
		}
		dir = up
	}
}

// outPathDiags warns when --out writes into the platform's Git work tree
// somewhere other than platform.git.path (issue 25). The root
// Application points Argo CD at <git.path>/<env>/argocd/apps of the
// repository, so output committed elsewhere is never deployed. platc
// does not derive git.path from --out: the executor compares the
// running root Application with platform.git, and the bootstrap
// installs it from the same setting, so the HCL stays the one source of
// that path, and the warning says how to make the two agree. Output
// outside the work tree (a scratch directory, another repository) is
// not judged: platc cannot know where it will be committed.
func outPathDiags(flag, platformPath string, mod *lang.Module, progs []*ir.Program) hcl.Diagnostics {
	if flag == "" || len(progs) == 0 || mod == nil || mod.Platform == nil {
		return nil
	}
	root, ok := gitRoot(platformPath)
	if !ok {
		return nil
	}
	out, err := filepath.Abs(flag)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(root, out)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	rel = filepath.ToSlash(rel)
	gitPath := progs[0].Platform.Git.Path
	if rel == gitPath {
		return nil
	}
	subject := mod.Platform.DeclRange
	var fix string
	switch g := mod.Platform.Git; {
	case g != nil && g.Path != nil:
		subject = g.Path.Expr.Range()
		fix = fmt.Sprintf("Set path = %q here", rel)
	case g != nil:
		subject = g.DeclRange
		fix = fmt.Sprintf("Add path = %q to this git block", rel)
	default:
		fix = fmt.Sprintf("Add git { path = %q } to the platform block", rel)
	}
	env := progs[0].Env.Name
	return hcl.Diagnostics{diag.Warning(subject, "Output directory differs from platform.git.path",
		fmt.Sprintf("--out writes into %s of the Git work tree %s, but the root Application points Argo CD at %s/%s/argocd/apps, where platc writes nothing: once committed, the output under %s would never be deployed. %s, or build without --out to write to %s.",
			rel, relToCwd(root), gitPath, env, rel, fix, gitPath))}
}

// relToCwd shortens an absolute path for messages.
func relToCwd(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil {
		return rel
	}
	return p
}

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
			english.Count(foreign, "file"), map[bool]string{true: "it", false: "them"}[foreign == 1])
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
