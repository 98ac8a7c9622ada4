package safefile

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// A Tree reads files only from inside its root directories, for input a
// stranger wrote (the repository platc import reads): every path must be
// inside a root as written and, once symbolic links are resolved, inside
// the same root, so a committed link to ~/.kube/config or /dev/zero is
// refused before it is opened; what it opens must be a regular file
// (devices, FIFOs and sockets are refused without blocking); each file is
// at most MaxFile bytes and all reads together at most MaxTotal, so no
// tree can make platc hold more than that in memory.
//
// Links that stay inside the root are followed. A link that is resolved
// when checked and changed before it is opened is not caught: the tree's
// author is not assumed to be racing platc on the same machine.
type Tree struct {
	maxFile, maxTotal int64
	roots             []treeRoot

	mu    sync.Mutex
	total int64
}

type treeRoot struct {
	name string // as given, for messages
	dir  string // absolute
	real string // absolute, symbolic links resolved
}

// TotalError reports a read that would take a Tree over its total bound.
type TotalError struct {
	Path  string
	Limit int64
}

func (e *TotalError) Error() string {
	return fmt.Sprintf("reading %s would take the files read over %s, the most platc reads from one tree", e.Path, Size(e.Limit))
}

// NewTree returns a Tree without roots, which reads files of at most
// maxFile bytes and maxTotal bytes in all.
func NewTree(maxFile, maxTotal int64) *Tree {
	return &Tree{maxFile: maxFile, maxTotal: maxTotal}
}

// AddRoot lets the Tree read files under dir.
func (t *Tree) AddRoot(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	t.roots = append(t.roots, treeRoot{name: dir, dir: abs, real: real})
	return nil
}

// root returns the root that holds path both as written and after
// symbolic links, with the resolved path; or an *OutsideError.
func (t *Tree) root(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var lexical *treeRoot
	for i := range t.roots {
		if within(t.roots[i].dir, abs) {
			lexical = &t.roots[i]
			break
		}
	}
	if lexical == nil {
		return "", &OutsideError{Path: path, Root: t.rootNames()}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	for _, r := range t.roots {
		if within(r.dir, abs) && within(r.real, real) {
			return real, nil
		}
	}
	return "", &OutsideError{Path: path, Root: lexical.name, Link: true}
}

func (t *Tree) rootNames() string {
	switch len(t.roots) {
	case 0:
		return "the tree read"
	case 1:
		return t.roots[0].name
	}
	return fmt.Sprintf("%s (or the %d other trees read)", t.roots[0].name, len(t.roots)-1)
}

// Contains reports whether path, as written and after symbolic links, is
// inside a root. A path that does not exist is not.
func (t *Tree) Contains(path string) bool {
	_, err := t.root(path)
	return err == nil
}

// Read returns the contents of the regular file at path, which must be
// inside a root (see Tree). Errors are *OutsideError, *NotRegularError,
// *TooLargeError, *TotalError, or the file system's.
func (t *Tree) Read(path string) ([]byte, error) {
	real, err := t.root(path)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	left := t.maxTotal - t.total
	t.mu.Unlock()
	limit := min(t.maxFile, left)
	b, err := Read(real, limit)
	var nr *NotRegularError
	var tl *TooLargeError
	switch {
	case errors.As(err, &nr):
		nr.Path = path
	case errors.As(err, &tl) && limit < t.maxFile:
		return nil, &TotalError{Path: path, Limit: t.maxTotal}
	case errors.As(err, &tl):
		tl.Path = path
	}
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.total += int64(len(b))
	t.mu.Unlock()
	return b, nil
}

// Refused reports whether err is one of the refusals of this package
// (as opposed to a file that does not exist or cannot be opened).
func Refused(err error) bool {
	var oe *OutsideError
	var nr *NotRegularError
	var tl *TooLargeError
	var te *TotalError
	return errors.As(err, &oe) || errors.As(err, &nr) || errors.As(err, &tl) || errors.As(err, &te)
}
