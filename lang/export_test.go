package lang

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Hooks for the external tests (lang_test), which need internal/synth,
// which imports lang.

var ParseFiles = parseFiles

// SetPieceSize changes the size at which files are cut and returns a
// function that restores it.
func SetPieceSize(n int) (restore func()) {
	old := pieceSize
	pieceSize = n
	return func() { pieceSize = old }
}

// Joins reports whether src is cut into more than one piece and the
// pieces join without falling back to parsing it whole.
func Joins(src []byte, name string) bool {
	ps := cut(src)
	if len(ps) < 2 {
		return false
	}
	_, diags := parseFiles([]SourceFile{{Name: name, Bytes: src}})
	parsed := make([]*hcl.File, len(ps))
	ds := make([]hcl.Diagnostics, len(ps))
	for i, p := range ps {
		parsed[i], ds[i] = hclsyntax.ParseConfig(p.src, name, p.start)
	}
	return len(diags[0]) == 0 && join(src, parsed, ds) != nil
}
