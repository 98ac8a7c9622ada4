package importer

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// memFS is the import's output files held in memory, by slash path
// relative to the output directory, so its self-check lints them before
// anything is written. Directories are implied by the paths.
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if b, ok := m[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: int64(len(b))}, r: bytes.NewReader(b)}, nil
	}
	if ents := m.children(name); len(ents) > 0 {
		return &memFile{info: memInfo{name: path.Base(name), dir: true}, ents: ents}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// children lists the entries directly under dir, sorted by name.
func (m memFS) children(dir string) []fs.DirEntry {
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	seen := map[string]memInfo{}
	for p, b := range m {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if name, _, sub := strings.Cut(rest, "/"); sub {
			seen[name] = memInfo{name: name, dir: true}
		} else {
			seen[name] = memInfo{name: name, size: int64(len(b))}
		}
	}
	ents := make([]fs.DirEntry, 0, len(seen))
	for _, i := range seen {
		ents = append(ents, fs.FileInfoToDirEntry(i))
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents
}

type memFile struct {
	info memInfo
	r    *bytes.Reader // nil for a directory
	ents []fs.DirEntry // a directory's entries not yet read
}

func (f *memFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if f.r != nil {
		return nil, &fs.PathError{Op: "readdir", Path: f.info.name, Err: fs.ErrInvalid}
	}
	if n <= 0 {
		ents := f.ents
		f.ents = nil
		return ents, nil
	}
	if len(f.ents) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(f.ents))
	ents := f.ents[:n]
	f.ents = f.ents[n:]
	return ents, nil
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Read(b []byte) (int, error) {
	if f.r == nil {
		return 0, &fs.PathError{Op: "read", Path: f.info.name, Err: fs.ErrInvalid}
	}
	return f.r.Read(b)
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
