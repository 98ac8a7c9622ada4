// Package gitroot finds the Git work tree that holds a path, the one way
// platc does: the nearest directory at or above it that holds .git (a
// directory, or the file of a linked work tree or submodule), and the
// URLs of its remotes. It runs no git command, so it works where git is
// not installed and reads nothing the environment (GIT_DIR) could
// redirect.
package gitroot

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/platc/platc/internal/safefile"
)

// Bounds of what is read: a .git file and commondir are one line, a Git
// config is small.
const (
	maxPointerBytes = 4096
	maxConfigBytes  = 1 << 20
)

// Find returns the absolute path of the work tree that holds path, and
// true; or, outside any, the absolute directory of path (path itself when
// it is a directory) and false.
func Find(path string) (string, bool) {
	start, err := filepath.Abs(path)
	if err != nil {
		return filepath.Dir(path), false
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

// Remotes returns the URLs of the remotes of the work tree whose root is
// root (as Find returns it), in the order its config lists them; none
// when its .git or config cannot be read. A linked work tree or a
// submodule has a .git file "gitdir: PATH", whose commondir leads to the
// config it shares. Only .git, those two pointers and the config are
// read, each bounded.
func Remotes(root string) []string {
	dotGit := filepath.Join(root, ".git")
	st, err := os.Lstat(dotGit)
	if err != nil {
		return nil
	}
	gitDir, ok := gitDirOf(dotGit, st)
	if !ok {
		return nil
	}
	b, err := safefile.Read(filepath.Join(gitDir, "config"), maxConfigBytes)
	if err != nil {
		return nil
	}
	var urls []string
	inRemote := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inRemote = strings.HasPrefix(line, "[remote ")
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && inRemote && strings.TrimSpace(k) == "url" {
			urls = append(urls, strings.Trim(strings.TrimSpace(v), `"`))
		}
	}
	return urls
}

// gitDirOf is the directory holding the config of the repository whose
// .git is at dotGit.
func gitDirOf(dotGit string, st fs.FileInfo) (string, bool) {
	if st.IsDir() {
		return dotGit, true
	}
	if !st.Mode().IsRegular() {
		return "", false
	}
	b, err := safefile.Read(dotGit, maxPointerBytes)
	if err != nil {
		return "", false
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	gitDir := strings.TrimSpace(p)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(filepath.Dir(dotGit), gitDir)
	}
	if c, err := safefile.Read(filepath.Join(gitDir, "commondir"), maxPointerBytes); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		gitDir = common
	}
	return gitDir, true
}
