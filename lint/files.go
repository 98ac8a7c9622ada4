package lint

import (
	"path/filepath"

	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/manifest"
)

// ReadFile returns the file at path, a path as the IR carries it (a
// hook's manifest joined to its declaring file's directory). Rules read
// platform files only through it, so the platform directory can be on
// disk or, for platc import's self-check, in memory (Config.Files).
//
// The file must be a regular file of at most manifest.MaxFileSize bytes
// inside the platform directory, as every file an attribute names:
// a path that leaves it, as written or through a symbolic link, is a
// *safefile.OutsideError.
func (p *Pass) ReadFile(path string) ([]byte, error) {
	root := p.Module.Dir
	if root == "" {
		root = "."
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || !safefile.Inside(filepath.ToSlash(rel)) {
		return nil, &safefile.OutsideError{Path: path, Root: root}
	}
	if p.files == nil {
		return safefile.ReadInside(root, filepath.ToSlash(rel), manifest.MaxFileSize)
	}
	return safefile.ReadFS(p.files, filepath.ToSlash(rel), path, manifest.MaxFileSize)
}
