package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/gitroot"
	"github.com/platc/platc/lang"
)

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
	root, _ := gitroot.Find(platformPath)
	return relToCwd(root)
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
	root, ok := gitroot.Find(platformPath)
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
