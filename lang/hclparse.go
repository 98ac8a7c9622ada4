package lang

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/internal/parallel"
)

// Parsing a large platform is mostly HCL's lexer, and a large part of that
// is growing one token slice for the whole file (over a million tokens
// for 10,000 apps, copied again at every growth). So files are parsed
// concurrently, and a large file is parsed in pieces: it is cut before
// lines that start a top-level block, each piece is parsed by
// hclsyntax.ParseConfig from its own start position, and the pieces'
// bodies are joined. This is only done when it cannot change the result:
//
//   - A piece is a run of whole top-level items, so when every piece
//     parses without a single diagnostic, the whole file's tokens are the
//     pieces' tokens one after the other and its body is their items one
//     after the other, with the same ranges (each piece starts at its
//     real line and byte).
//   - A cut in the wrong place (inside a heredoc, a block comment or a
//     bracket that spans lines) always leaves a piece unterminated, which
//     HCL reports. Then, or on any other diagnostic, or when two pieces
//     set the same top-level attribute, the file is parsed again whole,
//     so its diagnostics are exactly HCL's.
//
// The parsed form is the same *hcl.File as hclparse.Parser.ParseHCL
// returns: an *hclsyntax.Body, the file's bytes, and navigation.

// pieceSize is the size above which a file is cut, and about the size of
// a piece: large enough that the per-piece overhead does not matter,
// small enough to spread a 2.7 MB file over the CPUs in many pieces.
// Tests lower it to cut small files.
var pieceSize = 64 << 10

// piece is part of a file: its bytes and where they start.
type piece struct {
	src   []byte
	start hcl.Pos
}

// cut splits src before lines that start with a letter (where top-level
// blocks start in a formatted file), into pieces of about pieceSize.
func cut(src []byte) []piece {
	if len(src) < 2*pieceSize {
		return []piece{{src: src, start: hcl.InitialPos}}
	}
	var out []piece
	from, line := 0, 1
	pos := hcl.InitialPos
	for i := 0; i < len(src); {
		nl := bytes.IndexByte(src[i:], '\n')
		if nl < 0 {
			break
		}
		i += nl + 1
		line++
		if i-from >= pieceSize && i < len(src) && isLetter(src[i]) {
			out = append(out, piece{src: src[from:i], start: pos})
			from = i
			pos = hcl.Pos{Line: line, Column: 1, Byte: i}
		}
	}
	return append(out, piece{src: src[from:], start: pos})
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// parseFiles parses each source as hclparse.Parser.ParseHCL would, in
// parallel, and returns the files and diagnostics in source order. A
// name given twice is parsed once, as hclparse does.
func parseFiles(srcs []SourceFile) ([]*hcl.File, []hcl.Diagnostics) {
	files := make([]*hcl.File, len(srcs))
	diags := make([]hcl.Diagnostics, len(srcs))
	type task struct{ file, piece int }
	var tasks []task
	pieces := make([][]piece, len(srcs))
	parsed := make([][]*hcl.File, len(srcs))
	pieceDiags := make([][]hcl.Diagnostics, len(srcs))
	first := map[string]int{}
	for k, s := range srcs {
		if _, dup := first[s.Name]; dup {
			continue
		}
		first[s.Name] = k
		pieces[k] = cut(s.Bytes)
		parsed[k] = make([]*hcl.File, len(pieces[k]))
		pieceDiags[k] = make([]hcl.Diagnostics, len(pieces[k]))
		for i := range pieces[k] {
			tasks = append(tasks, task{k, i})
		}
	}
	// parallel.Do raises a panic in HCL's parser (on a hostile file) again
	// here, on the caller's goroutine, where the command's recover makes it
	// an internal error; on the pool's goroutine it would kill platc.
	parallel.Do(len(tasks), func(i int) {
		t := tasks[i]
		p := pieces[t.file][t.piece]
		parsed[t.file][t.piece], pieceDiags[t.file][t.piece] = parsePiece(p.src, srcs[t.file].Name, p.start)
	})
	var again []int
	for k, s := range srcs {
		if j := first[s.Name]; j != k {
			files[k] = files[j]
			continue
		}
		if len(parsed[k]) == 1 {
			files[k], diags[k] = parsed[k][0], pieceDiags[k][0]
			continue
		}
		if f := join(s.Bytes, parsed[k], pieceDiags[k]); f != nil {
			files[k] = f
			continue
		}
		again = append(again, k)
	}
	parallel.Do(len(again), func(i int) {
		k := again[i]
		files[k], diags[k] = parsePiece(srcs[k].Bytes, srcs[k].Name, hcl.InitialPos)
	})
	for k, s := range srcs {
		if j := first[s.Name]; j != k {
			files[k] = files[j]
		}
	}
	return files, diags
}

// parsePiece is parseChecked; a test replaces it with one that panics.
var parsePiece = parseChecked

// parseChecked is hclsyntax.ParseConfig for a source that passed
// CheckSource; one that did not is never given to HCL's parser, and
// yields an empty file with the check's diagnostics.
func parseChecked(src []byte, name string, start hcl.Pos) (*hcl.File, hcl.Diagnostics) {
	if diags := checkSource(name, src, start); diags.HasErrors() {
		return &hcl.File{Bytes: src}, diags
	}
	return hclsyntax.ParseConfig(src, name, start)
}

// join assembles the pieces of one file, or returns nil when the file
// must be parsed whole.
func join(src []byte, files []*hcl.File, diags []hcl.Diagnostics) *hcl.File {
	for _, d := range diags {
		if len(d) > 0 {
			return nil
		}
	}
	// The first piece's body becomes the file's, so that the navigation
	// ParseConfig built for it (an unexported type) covers the whole file.
	body := files[0].Body.(*hclsyntax.Body)
	for _, f := range files[1:] {
		b := f.Body.(*hclsyntax.Body)
		for name, a := range b.Attributes {
			if _, dup := body.Attributes[name]; dup {
				return nil // HCL reports "Attribute redefined"
			}
			body.Attributes[name] = a
		}
		body.Blocks = append(body.Blocks, b.Blocks...)
	}
	last := files[len(files)-1].Body.(*hclsyntax.Body)
	body.SrcRange = hcl.RangeBetween(body.SrcRange, last.SrcRange)
	body.EndRange = last.EndRange
	f := files[0]
	f.Bytes = src
	return f
}
