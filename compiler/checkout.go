package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/gitroot"
	"github.com/platc/platc/internal/safefile"
)

// A Git path in the platform's own repository must exist, as Argo CD
// resolves it: from the repository's root, or from the source's path.
// platc can only know
// that from a checkout of that repository, so the check runs when the
// platform directory is inside a Git work tree one of whose remotes is
// platform.git.repo_url, and only for sources at the platform's
// revision, which the work tree stands for. Anywhere else (a copy
// without .git, a clone of another repository, a source pinned to
// another revision) the paths are not checked: docs/language.md says so.

// Checkout is the Git work tree the platform directory is in.
type Checkout struct {
	// Dir is the work tree's root, for messages.
	Dir string
	// FS reads the work tree; an os.Root's, so nothing outside it is
	// read, symbolic links included.
	FS fs.FS
	// Remotes are the URLs of the work tree's remotes.
	Remotes []string
}

// maxSuggestEntries bounds how many entries of a directory are read to
// suggest a name.
const maxSuggestEntries = 4096

// FindCheckout returns the Git work tree dir is inside, as
// internal/gitroot finds it, or nil when it is in none, its .git cannot
// be read, or it has no remote.
func FindCheckout(dir string) *Checkout {
	root, ok := gitroot.Find(dir)
	if !ok {
		return nil
	}
	remotes := gitroot.Remotes(root)
	if len(remotes) == 0 {
		return nil // a repository with no remote is no clone of the platform's
	}
	// Opened once per command and kept for its life: platc compiles,
	// then exits.
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	return &Checkout{Dir: root, FS: r.FS(), Remotes: remotes}
}

// sameRepo reports whether two Git URLs name the same repository:
// scheme, credentials, letter case of the host, a trailing slash and
// ".git" aside, and scp-like user@host:path read as host/path.
func sameRepo(a, b string) bool { return repoKey(a) != "" && repoKey(a) == repoKey(b) }

func repoKey(s string) string {
	s = strings.TrimSpace(s)
	var host, p string
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		host, p = u.Hostname(), u.Path
	} else if m := scpLike.FindString(s); m != "" {
		_, rest, _ := strings.Cut(s, "@")
		host, p, _ = strings.Cut(rest, ":")
	} else {
		return ""
	}
	p = strings.TrimSuffix(strings.TrimSuffix(strings.Trim(p, "/"), ".git"), "/")
	return strings.ToLower(host) + "/" + p
}

// platformCheckout is the checkout when it is of the platform's
// repository, else nil.
func (c *compilation) platformCheckout() *Checkout {
	co := c.checkout
	if co == nil || co.FS == nil {
		return nil
	}
	if slices.ContainsFunc(co.Remotes, func(r string) bool { return sameRepo(r, c.prog.Platform.Git.RepoURL) }) {
		return co
	}
	return nil
}

// gitPath is a path of the platform's repository to check: written as
// the HCL says it, relative to base (a source's path, "" for the
// repository's root), as Argo CD resolves it.
type gitPath struct {
	written, base string
	dir           bool
	at            hcl.Range
	what          string
}

// checkGitPath reports a path of the platform's repository, at the
// platform's revision, that is not a directory of the checkout (dir) or
// not a file (!dir), with the nearest existing path, written as the HCL
// would write it.
func (c *compilation) checkGitPath(co *Checkout, g gitPath) {
	p, ok := inSource(g.base, g.written)
	clean := path.Clean(p)
	if !ok || clean == "." || !fs.ValidPath(clean) {
		return // leaving the repository is refused where the value is read
	}
	fromRoot := strings.HasPrefix(g.written, "/")
	if fromRoot {
		g.base = ""
	}
	from := "from the repository's root"
	if g.base != "" {
		from = fmt.Sprintf("relative to the source's path %q, so from the root it is %q", g.base, clean)
	}
	st, err := fs.Stat(co.FS, clean)
	switch {
	case err == nil && st.IsDir() == g.dir:
		return
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		// Not a missing path (an escaping link, a permission): say so
		// rather than guess.
		c.diags = append(c.diags, diag.Error(g.at, "Unreadable Git path",
			fmt.Sprintf("%s %q cannot be checked in the platform repository at %s: %s. Argo CD reads it %s; make it a %s inside the repository.", g.what, g.written, co.Dir, safefile.Unwrap(err), from, kindOf(g.dir))))
		return
	}
	var b strings.Builder
	if err == nil {
		fmt.Fprintf(&b, "%s %q is a %s in the platform repository at %s, not a %s (Argo CD reads it %s).", g.what, g.written, kindOf(st.IsDir()), co.Dir, kindOf(g.dir), from)
	} else {
		fmt.Fprintf(&b, "%s %q does not exist in the platform repository at %s; Argo CD resolves it %s, at the platform's revision, which this checkout stands for.", g.what, g.written, co.Dir, from)
	}
	// Suggestions are written as the value is: from the root with "/",
	// else relative to base.
	near, exact := nearestPath(co.FS, clean, g.dir)
	written := relTo(g.base, near)
	if fromRoot {
		written = "/" + near
	}
	switch {
	case exact:
		fmt.Fprintf(&b, " Did you mean %q?", written)
	case near != ".":
		fmt.Fprintf(&b, " The nearest existing directory is %q.", written)
	default:
		b.WriteString(" Not even its first directory exists.")
	}
	b.WriteString(" Fix the path, or commit what it names.")
	summary := "Git path not found"
	if err == nil {
		summary = "Git path of the wrong kind"
	}
	c.diags = append(c.diags, diag.Error(g.at, summary, b.String()))
}

// relTo writes p, a path from the repository's root, relative to base.
func relTo(base, p string) string {
	if base == "" {
		return p
	}
	r, err := filepath.Rel("/"+base, "/"+p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// elemRange is the range of the element of list a whose value is v, so
// that a bad element of a long list is reported where it is; else a's
// own range.
func (c *compilation) elemRange(a *hcl.Attribute, v string) hcl.Range {
	exprs, ds := hcl.ExprList(a.Expr)
	if !ds.HasErrors() {
		for _, e := range exprs {
			if ev, eds := e.Value(c.eval.ctx); !eds.HasErrors() && ev.Type() == cty.String && ev.IsKnown() && !ev.IsNull() && ev.AsString() == v {
				return e.Range()
			}
		}
	}
	return a.Expr.Range()
}

func kindOf(dir bool) string {
	if dir {
		return "directory"
	}
	return "file"
}

// nearestPath follows p through fsys, replacing each missing element by
// the closest name in its directory (diag.Suggest). exact is true when
// that leads to an existing path of the wanted kind; otherwise near is
// the longest existing directory on the way.
func nearestPath(fsys fs.FS, p string, dir bool) (near string, exact bool) {
	cur := "."
	parts := strings.Split(p, "/")
	for i, part := range parts {
		last := i == len(parts)-1
		next := path.Join(cur, part)
		if st, err := fs.Stat(fsys, next); err == nil && (st.IsDir() || (last && !dir)) && (!last || st.IsDir() == dir) {
			cur = next
			continue
		}
		var names []string
		f, err := fsys.Open(cur)
		if err != nil {
			return cur, false
		}
		rd, ok := f.(fs.ReadDirFile)
		if !ok {
			f.Close()
			return cur, false
		}
		entries, _ := rd.ReadDir(maxSuggestEntries)
		f.Close()
		for _, e := range entries {
			if e.IsDir() || (last && !dir) {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names)
		s := diag.Suggest(part, names)
		if s == "" {
			return cur, false
		}
		cur = path.Join(cur, s)
	}
	st, err := fs.Stat(fsys, cur)
	return cur, err == nil && st.IsDir() == dir && cur != p
}
