// Package gitroot finds the Git work tree that holds a path, the one way
// platc does: the nearest directory at or above it that holds .git (a
// directory, or the file of a linked work tree or submodule). It runs no
// git command, so it works where git is not installed and reads nothing
// the environment (GIT_DIR) could redirect.
package gitroot

import (
	"os"
	"path/filepath"
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
