package write

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/platc/platc/emit"
)

// Kind is what happens to one file.
type Kind int

// Kinds of change, in the order a summary lists them.
const (
	Added Kind = iota
	Changed
	Removed
)

func (k Kind) String() string {
	switch k {
	case Added:
		return "added"
	case Changed:
		return "changed"
	}
	return "removed"
}

// Change is one file that differs between the directory and what platc
// generates. Path is slash-separated and relative to the directory.
type Change struct {
	Path string
	Kind Kind
}

// ConflictError reports a path platc would write to that holds something
// platc did not generate.
type ConflictError struct {
	Dir, Path string
	What      string // "a file without the platc header", "a directory", …
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s holds %s, which platc will not overwrite; move it away or delete it",
		filepath.Join(e.Dir, filepath.FromSlash(e.Path)), e.What)
}

// entry is one thing found in the existing directory.
type entry struct {
	rel       string // slash path
	mode      fs.FileMode
	generated bool // a regular file starting with emit.Header
}

// scan lists dir recursively without following links. A missing dir is
// an empty listing. Files are opened to look for the header concurrently:
// a 10,000-app platform's directory holds over 10,000 of them.
func scan(dir string) ([]entry, error) {
	var out []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if p == dir {
			if !d.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, entry{rel: filepath.ToSlash(rel), mode: info.Mode()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = parallel(len(out), func(i int) error {
		if !out[i].mode.IsRegular() {
			return nil
		}
		var err error
		out[i].generated, err = hasHeader(filepath.Join(dir, filepath.FromSlash(out[i].rel)))
		return err
	})
	return out, err
}

func hasHeader(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, len(emit.Header))
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return n == len(buf) && string(buf) == emit.Header, nil
}

// checkFiles refuses output that breaks the emit contract: a platc bug.
func checkFiles(files []emit.File) error {
	seen := map[string]bool{}
	for _, f := range files {
		if f.Path == "" || path.Clean(f.Path) != f.Path || !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("generated path %q is not a clean relative path (this is a platc bug)", f.Path)
		}
		if seen[f.Path] {
			return fmt.Errorf("two emitters generate %s (this is a platc bug)", f.Path)
		}
		seen[f.Path] = true
		if !bytes.HasPrefix(f.Data, []byte(emit.Header)) {
			return fmt.Errorf("generated file %s does not start with the platc header (this is a platc bug)", f.Path)
		}
	}
	return nil
}

// plan compares dir with files: the changes, and the existing entries.
func plan(dir string, files []emit.File) ([]Change, []entry, error) {
	if err := checkFiles(files); err != nil {
		return nil, nil, err
	}
	existing, err := scan(dir)
	if err != nil {
		return nil, nil, err
	}
	byPath := make(map[string]entry, len(existing))
	for _, e := range existing {
		byPath[e.rel] = e
	}
	want := make(map[string]bool, len(files))
	var changes []Change
	// Generated files that exist already are compared with what they
	// would become below, all at once.
	var compare []int
	for k, f := range files {
		want[f.Path] = true
		// Every parent must be a directory (or not exist yet).
		for parent := path.Dir(f.Path); parent != "."; parent = path.Dir(parent) {
			if e, ok := byPath[parent]; ok && !e.mode.IsDir() {
				return nil, nil, &ConflictError{Dir: dir, Path: parent, What: describe(e)}
			}
		}
		e, ok := byPath[f.Path]
		switch {
		case !ok:
			changes = append(changes, Change{f.Path, Added})
		case !e.generated:
			return nil, nil, &ConflictError{Dir: dir, Path: f.Path, What: describe(e)}
		default:
			compare = append(compare, k)
		}
	}
	same := make([]bool, len(compare))
	err = parallel(len(compare), func(i int) error {
		f := files[compare[i]]
		var err error
		same[i], err = sameContent(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	for i, k := range compare {
		if !same[i] {
			changes = append(changes, Change{files[k].Path, Changed})
		}
	}
	for _, e := range existing {
		if e.generated && !want[e.rel] {
			changes = append(changes, Change{e.rel, Removed})
		}
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, existing, nil
}

// sameContent reports whether the file at p holds exactly data. It stops
// reading early when the sizes differ.
func sameContent(p string, data []byte) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	if info.Size() != int64(len(data)) {
		return false, nil
	}
	old := make([]byte, len(data)+1) // one more byte: the file may have grown
	n, err := io.ReadFull(f, old)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return bytes.Equal(old[:n], data), nil
}

func describe(e entry) string {
	switch {
	case e.mode.IsDir():
		return "a directory"
	case e.mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case e.mode.IsRegular():
		return "a file without the platc header"
	}
	return "a special file"
}

// Diff reports how dir differs from files, writing nothing.
func Diff(dir string, files []emit.File) ([]Change, error) {
	dir, err := resolve(dir)
	if err != nil {
		return nil, err
	}
	changes, _, err := plan(dir, files)
	return changes, err
}

// resolve follows dir itself when it is a symbolic link, so that the
// swap replaces the directory it points to rather than the link.
func resolve(dir string) (string, error) {
	dir = filepath.Clean(dir)
	info, err := os.Lstat(dir)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return dir, nil
	}
	return filepath.EvalSymlinks(dir)
}

// beforeSwap, when set, runs after the new directory is complete and
// before it replaces the old one. Tests use it to interrupt a build at
// the last moment.
var beforeSwap func(tmp string) error

const tmpMarker = ".platc-"

// Write makes dir hold files and every non-generated entry it held
// before, atomically, and returns what changed. When nothing changed it
// writes nothing at all.
func Write(dir string, files []emit.File) (changes []Change, err error) {
	if dir, err = resolve(dir); err != nil {
		return nil, err
	}
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	lock, err := acquire(parent, base)
	if err != nil {
		return nil, err
	}
	defer lock.release()
	if err := lock.recover(); err != nil {
		return nil, err
	}
	changes, existing, err := plan(dir, files)
	if err != nil || len(changes) == 0 {
		return changes, err
	}
	tmp, err := lock.mkTemp()
	if err != nil {
		return nil, err
	}
	swapped := false
	defer func() {
		if !swapped {
			os.RemoveAll(tmp)
		}
	}()
	if err := fill(tmp, dir, files, existing, changes); err != nil {
		return nil, err
	}
	if beforeSwap != nil {
		if err := beforeSwap(tmp); err != nil {
			return nil, err
		}
	}
	old, err := swap(tmp, dir)
	swapped = err == nil
	if err != nil {
		return nil, err
	}
	// The old tree is no longer reachable at dir; failing to delete it
	// loses nothing, and the next build removes it.
	os.RemoveAll(old)
	return changes, nil
}

// fill builds the new tree in tmp: the old directory's entries that stay
// (hard links for files, so they are not rewritten: generated files that
// did not change keep their modification time too), then the generated
// files that are new or changed, and makes it durable before the swap
// (durable).
func fill(tmp, dir string, files []emit.File, existing []entry, changes []Change) error {
	changed := make(map[string]bool, len(changes))
	for _, ch := range changes {
		changed[ch.Path] = true
	}
	t := newTreeIn(tmp, existing)
	jobs, err := t.plan(dir, files, existing, changed)
	if err != nil {
		return err
	}
	// One after the other: creating entries in a directory takes its
	// lock, and concurrent creators only spin on it (measured: several
	// times the system time for the same 10,000 files, no faster).
	var written []string
	for _, j := range jobs {
		var err error
		if j.src != "" {
			err = link(j.src, j.dst, j.mode)
		} else {
			err = writeFile(j.dst, j.data)
			written = append(written, j.dst)
		}
		if err != nil {
			return err
		}
	}
	if err := t.setModes(dir); err != nil {
		return err
	}
	return durable(tmp, written)
}

// job puts one file in the new tree: a link to an old one (src), or a
// generated file (data).
type job struct {
	src, dst string
	mode     fs.FileMode
	data     []byte
}

// newTree is the directory tree being built in tmp. Directories are
// created as something is put in them, with their old mode, so one that
// held only stale generated files disappears; directories that were
// empty to begin with are kept. They are writable while the tree is
// filled and get their final mode at the end (setModes), so a read-only
// one can still be filled.
type newTree struct {
	tmp         string
	dirMode     map[string]fs.FileMode // old directories' modes, by relative path
	hasChildren map[string]bool        // old directories that held something
	created     map[string]bool
	dirs        []madeDir // in creation order
}

type madeDir struct {
	path string
	mode fs.FileMode
}

func newTreeIn(tmp string, existing []entry) *newTree {
	t := &newTree{tmp: tmp, dirMode: map[string]fs.FileMode{}, hasChildren: map[string]bool{}, created: map[string]bool{}}
	for _, e := range existing {
		if e.mode.IsDir() {
			t.dirMode[e.rel] = e.mode.Perm()
		}
		t.hasChildren[path.Dir(e.rel)] = true
	}
	return t
}

func (t *newTree) mkdir(p string, mode fs.FileMode) error {
	if err := os.Mkdir(p, 0o700); err != nil {
		return err
	}
	t.created[p] = true
	t.dirs = append(t.dirs, madeDir{p, mode})
	return nil
}

// mkParents creates the directories above rel that do not exist yet.
func (t *newTree) mkParents(rel string) error {
	var todo []string
	for d := path.Dir(rel); d != "." && !t.created[filepath.Join(t.tmp, filepath.FromSlash(d))]; d = path.Dir(d) {
		todo = append(todo, d)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		mode, ok := t.dirMode[todo[i]]
		if !ok {
			mode = 0o755
		}
		if err := t.mkdir(filepath.Join(t.tmp, filepath.FromSlash(todo[i])), mode); err != nil {
			return err
		}
	}
	return nil
}

// plan creates the directories and symbolic links that stay and returns
// the files to put in: every old file that stays (linked from dir), then
// every generated file that is new or changed.
func (t *newTree) plan(dir string, files []emit.File, existing []entry, changed map[string]bool) ([]job, error) {
	var jobs []job
	for _, e := range existing {
		src := filepath.Join(dir, filepath.FromSlash(e.rel))
		dst := filepath.Join(t.tmp, filepath.FromSlash(e.rel))
		if e.mode.IsDir() && t.hasChildren[e.rel] || e.generated && changed[e.rel] {
			// Created on demand; stale generated files are dropped and
			// changed ones written below.
			continue
		}
		if err := t.mkParents(e.rel); err != nil {
			return nil, err
		}
		switch {
		case e.mode.IsDir():
			if err := t.mkdir(dst, e.mode.Perm()); err != nil {
				return nil, err
			}
		case e.mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return nil, err
			}
			if err := os.Symlink(target, dst); err != nil {
				return nil, err
			}
		default:
			jobs = append(jobs, job{src: src, dst: dst, mode: e.mode})
		}
	}
	for _, f := range files {
		if !changed[f.Path] {
			continue
		}
		if err := t.mkParents(f.Path); err != nil {
			return nil, err
		}
		jobs = append(jobs, job{dst: filepath.Join(t.tmp, filepath.FromSlash(f.Path)), data: f.Data})
	}
	return jobs, nil
}

// setModes gives every directory its final mode, deepest first, and the
// new root the mode of dir.
func (t *newTree) setModes(dir string) error {
	root := fs.FileMode(0o755)
	if info, err := os.Stat(dir); err == nil {
		root = info.Mode().Perm()
	}
	dirs := append([]madeDir{{t.tmp, root}}, t.dirs...)
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i].path, dirs[i].mode); err != nil {
			return err
		}
	}
	return nil
}

// link hard-links src to dst, or copies it (keeping mode and times) where
// the file system has no hard links.
func link(src, dst string, mode fs.FileMode) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, mode.Perm()); err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}

func writeFile(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncFiles flushes the written files and every directory of the new
// tree, so that the swap never exposes entries that a crash could still
// lose. It is the portable way; Linux does it in one call (durable).
func syncFiles(root string, written []string) error {
	err := parallel(len(written), func(i int) error {
		f, err := os.OpenFile(written[i], os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		// Some file systems cannot sync directories; that costs only
		// durability, never consistency.
		_ = f.Sync()
		return nil
	})
}

// ioWorkers is how many files are read at once: the work is mostly
// waiting for the kernel and the disk, so more than the CPUs. (Files are
// created one at a time; see fill.)
const ioWorkers = 8

// parallel runs f(0), …, f(n-1) on up to ioWorkers goroutines and returns
// the error of the lowest index that failed, so the error reported does
// not depend on scheduling.
func parallel(n int, f func(i int) error) error {
	if n == 0 {
		return nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, ioWorkers) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = f(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
