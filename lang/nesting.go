package lang

import (
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// HCL's parser is recursive descent and its evaluator walks the tree
// recursively, both without a depth limit; 100,000 nested parentheses
// exhaust Go's stack, which ends the process with a goroutine dump. So
// every source is measured before HCL sees it, and one that nests more
// than MaxNesting levels is refused with a diagnostic at the place it
// goes too deep.
//
// The measure is an upper bound on both recursions. Each open bracket,
// string, heredoc, template interpolation or template directive is a
// level; within a level, every operator (binary, unary, ?, :, ., and a
// bracket that follows an operand, as in a[b][c]) adds one more, since
// a chain a+b+c is a tree as deep as it is long. Operators stop counting
// where a level's items are separated: at a comma, at the = of an
// attribute or object item, and at a line break where HCL ends an item
// (the top level, block bodies and object constructors). String
// templates are flat: "${a}${b}" is one level deeper than its parts,
// however many there are.
//
// Measuring with HCL's own lexer costs about as much as parsing, so
// checkNesting first runs a scanner of its own over the bytes, which
// over-counts (every operator character counts, and it never resets at
// a line break inside brackets) and gives up on what it does not model
// (heredocs, block comments, template directives, $${ escapes, a line
// break inside a string, mismatched brackets, invalid UTF-8). Only a source it gives
// up on, or finds too deep, is measured again with HCL's lexer, whose
// answer decides. FuzzNesting checks that the scanner never answers
// lower than the lexer.

// CheckSource reports a source platc will not hand to HCL's parser: one
// larger than MaxFileSize, or nested more than MaxNesting levels deep.
// Parse and Format call it on every file.
func CheckSource(name string, src []byte) hcl.Diagnostics {
	return checkSource(name, src, hcl.InitialPos)
}

func checkSource(name string, src []byte, start hcl.Pos) hcl.Diagnostics {
	if len(src) > MaxFileSize {
		r := hcl.Range{Filename: name, Start: start, End: start}
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "File too large",
			Detail:   fmt.Sprintf("%s is larger than %d MiB, the most platc reads from one .hcl file. Split the platform into several files.", name, MaxFileSize>>20),
			Subject:  &r,
		}}
	}
	return checkNesting(name, src, start)
}

// checkNesting reports src if it nests more than MaxNesting levels.
func checkNesting(name string, src []byte, start hcl.Pos) hcl.Diagnostics {
	if d, ok := scanDepth(src); ok && d <= MaxNesting {
		return nil
	}
	d, at := tokenDepth(name, src, start, MaxNesting)
	if d <= MaxNesting {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Expression nested too deeply",
		Detail: fmt.Sprintf("This expression nests more than %d levels deep (brackets, strings and chained operators each count one), more than platc accepts. Split it into smaller expressions, for example by moving parts into env attributes.",
			MaxNesting),
		Subject: &at,
	}}
}

// levelKind is what opened a nesting level.
type levelKind uint8

const (
	levelTop levelKind = iota
	levelParen
	levelBrack
	levelBrace    // a block body or an object constructor: newline-separated
	levelBraceFor // {for ...}: newlines do not separate
	levelInterp   // ${ ... }
	levelControl  // %{ ... }
	levelQuote    // "..."
	levelHeredoc
	levelDirective // the body of %{if} or %{for}, up to %{endif} or %{endfor}
)

// template reports whether a level holds template parts, which are flat.
func (k levelKind) template() bool {
	return k == levelQuote || k == levelHeredoc || k == levelDirective
}

// lineSeparates reports whether a line break ends an item at this level.
func (k levelKind) lineSeparates() bool { return k == levelTop || k == levelBrace }

type level struct {
	kind levelKind
	ops  int
	// directive is +1 when a %{ control opens an if or for, -1 when it
	// closes one.
	directive int
	// fresh is set on a brace level until its first token, to tell {for
	// from an object constructor.
	fresh bool
}

// depthMeter computes the measure over a stream of levels and operators.
type depthMeter struct {
	stack []level
	depth int // sum over the stack of 1 + ops
	max   int
}

func newDepthMeter() *depthMeter {
	return &depthMeter{stack: []level{{kind: levelTop}}, depth: 1, max: 1}
}

func (m *depthMeter) top() *level { return &m.stack[len(m.stack)-1] }

func (m *depthMeter) op() {
	m.top().ops++
	m.depth++
	m.max = max(m.max, m.depth)
}

func (m *depthMeter) reset() {
	m.depth -= m.top().ops
	m.top().ops = 0
}

// open pushes a level; in code, the opener also counts as an operator
// of the enclosing level.
func (m *depthMeter) open(k levelKind) {
	if !m.top().kind.template() {
		m.op()
	}
	m.stack = append(m.stack, level{kind: k, fresh: k == levelBrace})
	m.depth++
	m.max = max(m.max, m.depth)
}

// close pops the top level if it is one of kinds and reports whether it
// did. A closer that does not match is ignored, which can only make the
// measure larger than HCL's nesting, never smaller.
func (m *depthMeter) close(kinds ...levelKind) (level, bool) {
	if len(m.stack) == 1 {
		return level{}, false
	}
	t := *m.top()
	for _, k := range kinds {
		if t.kind == k {
			m.depth -= 1 + t.ops
			m.stack = m.stack[:len(m.stack)-1]
			return t, true
		}
	}
	return level{}, false
}

// tokenDepth measures src with HCL's lexer. It stops at the first token
// that takes the measure above limit and returns that token's range.
func tokenDepth(name string, src []byte, start hcl.Pos, limit int) (int, hcl.Range) {
	toks, _ := hclsyntax.LexConfig(src, name, start)
	m := newDepthMeter()
	for i, t := range toks {
		if t.Type == hclsyntax.TokenComment {
			// A line comment takes its line break with it.
			if len(t.Bytes) > 0 && t.Bytes[len(t.Bytes)-1] == '\n' && m.top().kind.lineSeparates() {
				m.reset()
			}
			continue
		}
		if t.Type != hclsyntax.TokenNewline && m.top().fresh {
			m.top().fresh = false
			if t.Type == hclsyntax.TokenIdent && string(t.Bytes) == "for" {
				m.top().kind = levelBraceFor
			}
		}
		switch t.Type {
		case hclsyntax.TokenOParen:
			m.open(levelParen)
		case hclsyntax.TokenOBrack:
			m.open(levelBrack)
		case hclsyntax.TokenOBrace:
			m.open(levelBrace)
		case hclsyntax.TokenTemplateInterp:
			m.open(levelInterp)
		case hclsyntax.TokenTemplateControl:
			m.open(levelControl)
			if i+1 < len(toks) && toks[i+1].Type == hclsyntax.TokenIdent {
				switch string(toks[i+1].Bytes) {
				case "if", "for":
					m.top().directive = 1
				case "endif", "endfor":
					m.top().directive = -1
				}
			}
		case hclsyntax.TokenOQuote:
			m.open(levelQuote)
		case hclsyntax.TokenOHeredoc:
			m.open(levelHeredoc)
		case hclsyntax.TokenCParen:
			m.close(levelParen)
		case hclsyntax.TokenCBrack:
			m.close(levelBrack)
		case hclsyntax.TokenCBrace:
			m.close(levelBrace, levelBraceFor)
		case hclsyntax.TokenCQuote:
			m.close(levelQuote)
		case hclsyntax.TokenCHeredoc:
			m.close(levelHeredoc)
		case hclsyntax.TokenTemplateSeqEnd:
			if l, ok := m.close(levelInterp, levelControl); ok {
				switch l.directive {
				case 1:
					m.stack = append(m.stack, level{kind: levelDirective})
					m.depth++
					m.max = max(m.max, m.depth)
				case -1:
					m.close(levelDirective)
				}
			}
		case hclsyntax.TokenComma, hclsyntax.TokenEqual:
			m.reset()
		case hclsyntax.TokenNewline:
			if m.top().kind.lineSeparates() {
				m.reset()
			}
		case hclsyntax.TokenPlus, hclsyntax.TokenMinus, hclsyntax.TokenStar, hclsyntax.TokenSlash,
			hclsyntax.TokenPercent, hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang,
			hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenLessThan,
			hclsyntax.TokenLessThanEq, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq,
			hclsyntax.TokenQuestion, hclsyntax.TokenColon, hclsyntax.TokenDot, hclsyntax.TokenEllipsis,
			hclsyntax.TokenFatArrow:
			m.op()
		}
		if m.max > limit {
			return m.max, t.Range
		}
	}
	return m.max, hcl.Range{}
}

// scanDepth measures src byte by byte, never lower than tokenDepth. ok
// is false when the source holds something the scanner does not model.
func scanDepth(src []byte) (depth int, ok bool) {
	// HCL's lexer can take the bytes after an invalid UTF-8 sequence into
	// the same token, a quote or a # among them.
	if !utf8.Valid(src) {
		return 0, false
	}
	m := newDepthMeter()
	n := len(src)
	for i := 0; i < n; i++ {
		c := src[i]
		top := m.top()
		if top.kind == levelQuote {
			switch c {
			case '\\':
				i++
			case '\n':
				return 0, false
			case '"':
				m.close(levelQuote)
			case '$', '%':
				if i+1 < n && (src[i+1] == c) {
					return 0, false // $${ and %%{ escapes
				}
				if i+1 < n && src[i+1] == '{' {
					if c == '%' {
						return 0, false // template directives
					}
					m.open(levelInterp)
					i++
				}
			}
			continue
		}
		if c == '#' || c == '/' && i+1 < n && src[i+1] == '/' {
			for i+1 < n && src[i+1] != '\n' {
				i++
			}
			continue
		}
		if top.fresh && c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			top.fresh = false
			if c == 'f' && i+3 <= n && string(src[i:i+3]) == "for" && (i+3 == n || !isIdentByte(src[i+3])) {
				top.kind = levelBraceFor
			}
		}
		switch c {
		case '\n':
			if top.kind.lineSeparates() {
				m.reset()
			}
		case '/':
			if i+1 < n && src[i+1] == '*' {
				return 0, false
			}
			m.op()
		case '<':
			if i+1 < n && src[i+1] == '<' {
				return 0, false // heredoc
			}
			m.op()
			if i+1 < n && src[i+1] == '=' {
				i++
			}
		case '"':
			m.open(levelQuote)
		case '(':
			m.open(levelParen)
		case '[':
			m.open(levelBrack)
		case '{':
			m.open(levelBrace)
		case ')':
			if _, ok := m.close(levelParen); !ok {
				return 0, false
			}
		case ']':
			if _, ok := m.close(levelBrack); !ok {
				return 0, false
			}
		case '}':
			if _, ok := m.close(levelBrace, levelBraceFor, levelInterp); !ok {
				return 0, false
			}
		case '=':
			if i+1 < n && (src[i+1] == '=' || src[i+1] == '>') {
				m.op()
				i++
			} else {
				m.reset()
			}
		case ',':
			m.reset()
		case '!', '>':
			m.op()
			if i+1 < n && src[i+1] == '=' {
				i++
			}
		case '+', '-', '*', '%', '&', '|', '?', ':', '.':
			m.op()
		}
	}
	if len(m.stack) != 1 {
		return 0, false
	}
	return m.max, true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
