package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"path/filepath"
)

// NotRegularError reports a path that is not a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Describe(e.Mode))
}

// TooLargeError reports a file larger than the caller's limit.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most platc reads from such a file", e.Path, Size(e.Limit))
}

// OutsideError reports a path that leaves its root directory.
type OutsideError struct {
	Path, Root string
	// Link is set when the path stays inside as written but a symbolic
	// link takes it outside.
	Link bool
}

func (e *OutsideError) Error() string {
	if e.Link {
		return fmt.Sprintf("%s leads outside %s through a symbolic link", e.Path, e.Root)
	}
	return fmt.Sprintf("%s is outside %s", e.Path, e.Root)
}

// Describe names the kind of file a mode is, for messages.
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// Size writes a byte count the way limits are documented: "8 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read returns the contents of the regular file at path, which may be at
// most limit bytes long. Symbolic links are followed; what they lead to
// must be a regular file too.
func Read(path string, limit int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, path, limit)
}

// readOpen reads f, which must be a regular file of at most limit bytes;
// path names it in the errors.
func readOpen(f fs.File, path string, limit int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: info.Mode()}
	}
	if info.Size() > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	// The size can change, and /proc files report 0: read one byte more
	// than the limit to tell.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return b, nil
}

// Inside reports whether rel, joined to root, stays inside root as
// written: it is not absolute and its ".." elements do not climb above
// root. It looks at the names only, not at the file system.
func Inside(rel string) bool {
	return rel != "" && filepath.IsLocal(filepath.FromSlash(rel))
}

// ReadInside reads the regular file at root/rel, at most limit bytes,
// and refuses it when rel leaves root as written or when symbolic links
// (in rel, or rel itself) resolve to a place outside root.
func ReadInside(root, rel string, limit int64) ([]byte, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if !Inside(rel) {
		return nil, &OutsideError{Path: p, Root: root}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if !within(realRoot, real) {
		return nil, &OutsideError{Path: p, Root: root, Link: true}
	}
	b, err := Read(real, limit)
	var nr *NotRegularError
	var tl *TooLargeError
	switch {
	case errors.As(err, &nr):
		nr.Path = p
	case errors.As(err, &tl):
		tl.Path = p
	}
	return b, err
}

// Within reports whether path, after resolving symbolic links, is inside
// root (also resolved). A path that cannot be resolved is not.
func Within(root, path string) bool {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	return within(realRoot, real)
}

// within compares two resolved paths, relative or absolute.
func within(root, path string) bool {
	root, err1 := filepath.Abs(root)
	path, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Unwrap strips the *fs.PathError around err, whose path the callers'
// messages already name.
func Unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFS reads the regular file name of fsys, at most limit bytes, with
// the errors of Read; path names the file in them. The caller's fsys
// decides what lies inside it (an os.Root's, or files held in memory).
func ReadFS(fsys fs.FS, name, path string, limit int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, path, limit)
}
