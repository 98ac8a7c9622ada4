package manifest

import (
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"
)

// Resolve follows an alias to the node it names.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// Lookup walks mapping keys from n and returns the value node, or nil.
func Lookup(n *yaml.Node, path ...string) *yaml.Node {
	n = Resolve(n)
	for _, k := range path {
		_, v := Entry(n, k)
		if v == nil {
			return nil
		}
		n = v
	}
	return n
}

// Entry returns the key and value nodes of key in the mapping n.
func Entry(n *yaml.Node, key string) (k, v *yaml.Node) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], Resolve(n.Content[i+1])
		}
	}
	return nil, nil
}

// Str returns the value of a scalar node, or "".
func Str(n *yaml.Node) string {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// Strings returns the scalar items of a sequence node.
func Strings(n *yaml.Node) []*yaml.Node {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []*yaml.Node
	for _, it := range n.Content {
		if it = Resolve(it); it.Kind == yaml.ScalarNode {
			out = append(out, it)
		}
	}
	return out
}

// Annotation is one metadata.annotations entry with its nodes.
type Annotation struct {
	Key, Value *yaml.Node
}

// Annotation returns the annotation named key of the object's metadata
// (or of the mapping at path, for templates such as an ApplicationSet's).
func (o *Object) Annotation(key string, path ...string) (Annotation, bool) {
	meta := o.Node
	if len(path) > 0 {
		meta = Lookup(o.Node, path...)
	}
	k, v := Entry(Lookup(meta, "metadata", "annotations"), key)
	if k == nil || v == nil || v.Kind != yaml.ScalarNode {
		return Annotation{}, false
	}
	return Annotation{Key: k, Value: v}, true
}

// Pos converts a YAML line and column (1-based, columns in characters)
// to an hcl.Pos with its byte offset.
func (f *File) Pos(line, col int) hcl.Pos {
	if line < 1 || line > len(f.lines) {
		return hcl.Pos{Line: max(line, 1), Column: max(col, 1)}
	}
	b := f.lines[line-1]
	for c := 1; c < col && b < len(f.Bytes) && f.Bytes[b] != '\n'; c++ {
		_, size := utf8.DecodeRune(f.Bytes[b:])
		b += size
	}
	return hcl.Pos{Line: line, Column: col, Byte: b}
}

// line returns the bytes of one line without its newline.
func (f *File) line(n int) []byte {
	if n < 1 || n > len(f.lines) {
		return nil
	}
	start, end := f.lines[n-1], len(f.Bytes)
	if n < len(f.lines) {
		end = f.lines[n] - 1
	}
	return []byte(strings.TrimRight(string(f.Bytes[start:end]), "\r"))
}

// LineRange is the range of a line's text without its indentation.
func (f *File) LineRange(n int) hcl.Range {
	text := string(f.line(n))
	trimmed := strings.TrimLeft(text, " \t")
	startCol := utf8.RuneCountInString(text[:len(text)-len(trimmed)]) + 1
	body := strings.TrimRight(trimmed, " \t")
	return hcl.Range{Filename: f.Path, Start: f.Pos(n, startCol), End: f.Pos(n, startCol+utf8.RuneCountInString(body))}
}

// Range is the range of a node's source text. For a scalar written on
// one line that is the scalar (with its quotes); for anything else, the
// rest of its first line.
func (f *File) Range(n *yaml.Node) hcl.Range {
	start := f.Pos(n.Line, n.Column)
	text := f.line(n.Line)
	off := start.Byte - f.lines[min(max(n.Line, 1), len(f.lines))-1]
	if off < 0 || off > len(text) {
		return hcl.Range{Filename: f.Path, Start: start, End: start}
	}
	rest := string(text[off:])
	width := len(strings.TrimRight(rest, " \t"))
	if n.Kind == yaml.ScalarNode {
		switch n.Style {
		case yaml.DoubleQuotedStyle:
			width = quotedEnd(rest, '"')
		case yaml.SingleQuotedStyle:
			width = quotedEnd(rest, '\'')
		case yaml.LiteralStyle, yaml.FoldedStyle:
			width = 1
		default:
			if !strings.Contains(n.Value, "\n") && strings.HasPrefix(rest, n.Value) {
				width = len(n.Value)
			}
		}
	}
	endCol := n.Column + utf8.RuneCountInString(rest[:width])
	return hcl.Range{Filename: f.Path, Start: start, End: f.Pos(n.Line, endCol)}
}

// Span is the range from the start of a to the end of b, such as a whole
// "key: value" pair.
func (f *File) Span(a, b *yaml.Node) hcl.Range {
	r := f.Range(a)
	if b != nil && b.Line == a.Line {
		r.End = f.Range(b).End
	}
	return r
}

// quotedEnd returns the byte length of a quoted scalar that starts at
// s[0], including both quotes, or len(s) if it does not close on this
// line.
func quotedEnd(s string, q byte) int {
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case q == '\'' && s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return len(s)
}

// ContentLine returns the file line on which line i (0-based) of a block
// scalar's value is written, and whether it could be told exactly. Only
// literal block scalars ("|") keep their lines one to one; for anything
// else the scalar's own line is returned.
func (f *File) ContentLine(n *yaml.Node, i int) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Style != yaml.LiteralStyle {
		if !strings.Contains(n.Value, "\n") && i == 0 {
			return n.Line, true
		}
		return n.Line, false
	}
	// A literal scalar's content starts on the line after its "|" and
	// keeps every line break, blank lines included, so value line i is
	// file line n.Line+1+i. The source is checked in case the scalar was
	// written in some form this does not foresee.
	want := strings.Split(n.Value, "\n")
	if i >= len(want) {
		return n.Line, false
	}
	line := n.Line + 1 + i
	if line <= len(f.lines) && strings.TrimSpace(string(f.line(line))) == strings.TrimSpace(want[i]) {
		return line, true
	}
	return n.Line, false
}
