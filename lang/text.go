package lang

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// What a platform file may hold as text. A string in an .hcl file ends
// up in generated YAML, Lua, Argo parameters and Ansible variables, and
// the files are reviewed as text:
//
//   - Bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E,
//     U+200F, U+061C) make text display in another order than it is read
//     ("Trojan Source", CVE-2021-42574), in a review of the .hcl file as
//     much as of generated output. They are refused anywhere in a file,
//     comments included.
//   - Control characters other than tab, line feed and carriage return
//     (NUL, escape, the C1 controls) have no business in configuration:
//     NUL breaks Argo's template substitution, escapes rewrite a
//     terminal showing a diagnostic or a diff. They are refused in every
//     string, however written ("\u0000" included).
//   - A string literal longer than MaxStringLength is refused.

// checkText reports what f, the file called name, may not hold as text.
func checkText(name string, f *hcl.File) hcl.Diagnostics {
	diags := checkBidi(name, f.Bytes)
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return diags
	}
	w := stringWalker{check: func(s string, r hcl.Range) {
		if d := checkString(s, r); d != nil {
			diags = append(diags, d)
		}
	}}
	w.body(body)
	return diags
}

// stringWalker visits every string a body holds: literals, template
// parts, block labels and traversal keys. It is hclsyntax.VisitAll for
// strings only, without VisitAll's allocations per node, which were a
// quarter of a 10,000-app platform's parse. The nesting check bounds its
// recursion.
type stringWalker struct {
	check func(string, hcl.Range)
}

func (w stringWalker) body(b *hclsyntax.Body) {
	for _, a := range b.Attributes {
		w.expr(a.Expr)
	}
	for _, blk := range b.Blocks {
		for i, l := range blk.Labels {
			w.check(l, blk.LabelRanges[i])
		}
		w.body(blk.Body)
	}
}

func (w stringWalker) traversal(t hcl.Traversal) {
	for _, step := range t {
		if ix, ok := step.(hcl.TraverseIndex); ok {
			w.value(ix.Key, ix.SrcRange)
		}
	}
}

func (w stringWalker) value(v cty.Value, r hcl.Range) {
	if v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		w.check(v.AsString(), r)
	}
}

func (w stringWalker) expr(e hclsyntax.Expression) {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		w.value(e.Val, e.SrcRange)
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			w.expr(p)
		}
	case *hclsyntax.TemplateWrapExpr:
		w.expr(e.Wrapped)
	case *hclsyntax.ScopeTraversalExpr:
		w.traversal(e.Traversal)
	case *hclsyntax.RelativeTraversalExpr:
		w.expr(e.Source)
		w.traversal(e.Traversal)
	case *hclsyntax.TupleConsExpr:
		for _, x := range e.Exprs {
			w.expr(x)
		}
	case *hclsyntax.ObjectConsExpr:
		for _, it := range e.Items {
			w.expr(it.KeyExpr)
			w.expr(it.ValueExpr)
		}
	case *hclsyntax.ObjectConsKeyExpr:
		w.expr(e.Wrapped)
	case *hclsyntax.FunctionCallExpr:
		for _, x := range e.Args {
			w.expr(x)
		}
	case *hclsyntax.ParenthesesExpr:
		w.expr(e.Expression)
	case *hclsyntax.BinaryOpExpr:
		w.expr(e.LHS)
		w.expr(e.RHS)
	case *hclsyntax.UnaryOpExpr:
		w.expr(e.Val)
	case *hclsyntax.ConditionalExpr:
		w.expr(e.Condition)
		w.expr(e.TrueResult)
		w.expr(e.FalseResult)
	case *hclsyntax.IndexExpr:
		w.expr(e.Collection)
		w.expr(e.Key)
	case *hclsyntax.SplatExpr:
		w.expr(e.Source)
		w.expr(e.Each)
	case *hclsyntax.ForExpr:
		w.expr(e.CollExpr)
		w.expr(e.KeyExpr)
		w.expr(e.ValExpr)
		w.expr(e.CondExpr)
	case *hclsyntax.TemplateJoinExpr:
		w.expr(e.Tuple)
	case *hclsyntax.AnonSymbolExpr, nil:
	default:
		// An expression type this walker does not know: VisitAll reaches
		// everything in it.
		_ = hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
			switch n := n.(type) {
			case *hclsyntax.LiteralValueExpr:
				w.value(n.Val, n.SrcRange)
			case *hclsyntax.ScopeTraversalExpr:
				w.traversal(n.Traversal)
			case *hclsyntax.RelativeTraversalExpr:
				w.traversal(n.Traversal)
			}
			return nil
		})
	}
}

// checkBidi reports the bidirectional controls in src, one per line.
func checkBidi(name string, src []byte) hcl.Diagnostics {
	var diags hcl.Diagnostics
	line, col, lastLine := 1, 1, 0
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if isBidi(r) && line != lastLine {
			lastLine = line
			start := hcl.Pos{Line: line, Column: col, Byte: i}
			end := hcl.Pos{Line: line, Column: col + 1, Byte: i + size}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Bidirectional control character",
				Detail:   fmt.Sprintf("This line holds U+%04X, which makes text display in a different order than it is read, so what a reviewer sees is not what platc reads. Remove it; write right-to-left text without explicit direction controls.", r),
				Subject:  &hcl.Range{Filename: name, Start: start, End: end},
			})
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return diags
}

// checkString reports a string that holds a control character or is too
// long.
func checkString(s string, r hcl.Range) *hcl.Diagnostic {
	if len(s) > MaxStringLength {
		return &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "String too long",
			Detail:   fmt.Sprintf("This string is %d bytes long; platc accepts strings of at most %d MiB. Keep large content in files the chart or manifest reads, not in the platform.", len(s), MaxStringLength>>20),
			Subject:  r.Ptr(),
		}
	}
	for _, c := range s {
		if isControl(c) || isBidi(c) {
			return &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Control character in string",
				Detail:   fmt.Sprintf("This string holds %U, a control character. Strings may hold tab and line breaks, but no other control characters (NUL, escape, bidirectional controls): generated files must read as they are. Remove it.", c),
				Subject:  r.Ptr(),
			}
		}
	}
	return nil
}

// RefusedInString reports a rune no platform string may hold, however
// it is written: what checkString refuses. The importer checks what it
// is about to write with it.
func RefusedInString(r rune) bool { return isControl(r) || isBidi(r) }

func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0x7F && r <= 0x9F
}

func isBidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}
