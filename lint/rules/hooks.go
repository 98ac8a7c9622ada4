package rules

import (
	"os"
	"path/filepath"

	"github.com/platc/platc/detect"
	"github.com/platc/platc/manifest"
)

// objectName names an object for messages: Job "harbor-migrate".
func objectName(o *manifest.Object) string { return detect.ObjectName(o) }

// Str reads a scalar field of an object.
func Str(o *manifest.Object, path ...string) string {
	return manifest.Str(manifest.Lookup(o.Node, path...))
}

// hookPath resolves a declared hook's manifest path the way the compiler
// documents it: relative to the file that declares the hook.
func hookPath(dir, manifestPath string) string {
	if filepath.IsAbs(manifestPath) {
		return manifestPath
	}
	return filepath.Join(dir, manifestPath)
}

// sameFile reports whether two paths name the same file, however they
// were written.
func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ia, ib)
}
