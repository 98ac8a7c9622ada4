package emit

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file writes YAML the way platc always has, without the detours.
//
// platc's YAML used to come from sigs.k8s.io/yaml: the object was marshalled
// to JSON, that JSON parsed again by go-yaml v2 into maps, and the maps
// marshalled by go-yaml v2's emitter. On a 10,000-app platform those round
// trips were most of platc build's time. The bytes they produce are now
// the contract (every generated file, every golden), so the writer below
// reproduces exactly what go-yaml v2 (go.yaml.in/yaml/v2, as
// sigs.k8s.io/yaml v1.6 calls it) writes for a decoded JSON tree:
//
//   - map keys in go-yaml's "natural" order (yamlKeyLess), not byte order;
//   - numbers as go-yaml resolves the JSON text of a float64 (an integer
//     when it parses as one);
//   - strings plain when go-yaml would read them back as the same string,
//     double-quoted when they would resolve to something else (true, 1.5,
//     null, 2024-01-02, 1:20), a literal block when they hold a newline,
//     and downgraded to single or double quotes by libyaml's scalar
//     analysis (yamlScalar.analyze);
//   - libyaml's layout: two-space indents, sequences inside mappings not
//     indented, empty collections as {} and [], plain and quoted scalars
//     folded at spaces past column 80, keys over 128 bytes written as
//     "? key".
//
// The names and structure follow go-yaml's emitterc.go so the two can be
// read side by side; TestYAMLMatchesGoYAML and FuzzYAML compare the two
// writers on generated trees and on every emitter's output.

// yamlBestWidth and yamlBestIndent are libyaml's defaults, which go-yaml
// v2 keeps unless FutureLineWrap is called (sigs.k8s.io/yaml does not).
const (
	yamlBestWidth  = 80
	yamlBestIndent = 2
)

type scalarStyle int

const (
	plainStyle scalarStyle = iota
	singleQuotedStyle
	doubleQuotedStyle
	literalStyle
)

// yamlWriter is the state of libyaml's emitter that matters for block
// documents of maps, sequences and scalars.
type yamlWriter struct {
	buf     []byte
	column  int
	indent  int
	indents []int

	whitespace, indention bool
	flowLevel             int

	// The context of the node being written (yaml_emitter_emit_node).
	rootCtx, sequenceCtx, mappingCtx, simpleKeyCtx bool
}

// appendYAMLDocument appends one YAML document holding v, a tree as
// encoding/json decodes into any (map[string]any, []any, string, float64,
// bool, nil), exactly as yaml.Marshal of go-yaml v2 would write the same
// tree after a JSON round trip.
func appendYAMLDocument(buf []byte, v any) []byte {
	w := yamlWriter{buf: buf, indent: -1, whitespace: true, indention: true}
	w.node(v, true, false, false, false)
	// Document end: a final line break unless the last scalar wrote one.
	w.writeIndent()
	return w.buf
}

func (w *yamlWriter) put(c byte) {
	w.buf = append(w.buf, c)
	w.column++
}

func (w *yamlWriter) putBreak() {
	w.buf = append(w.buf, '\n')
	w.column = 0
}

// write copies the character at s[i] and returns the index after it. A
// column is a character, not a byte.
func (w *yamlWriter) write(s string, i int) int {
	n := utf8Width(s[i])
	w.buf = append(w.buf, s[i:i+n]...)
	w.column++
	return i + n
}

func (w *yamlWriter) writeAll(s string) {
	for i := 0; i < len(s); {
		i = w.write(s, i)
	}
}

func (w *yamlWriter) writeBreak(s string, i int) int {
	if s[i] == '\n' {
		w.putBreak()
		return i + 1
	}
	i = w.write(s, i)
	w.column = 0
	return i
}

func (w *yamlWriter) increaseIndent(flow, indentless bool) {
	w.indents = append(w.indents, w.indent)
	if w.indent < 0 {
		if flow {
			w.indent = yamlBestIndent
		} else {
			w.indent = 0
		}
	} else if !indentless {
		w.indent += yamlBestIndent
	}
}

func (w *yamlWriter) popIndent() {
	w.indent = w.indents[len(w.indents)-1]
	w.indents = w.indents[:len(w.indents)-1]
}

func (w *yamlWriter) writeIndent() {
	indent := max(w.indent, 0)
	if !w.indention || w.column > indent || (w.column == indent && !w.whitespace) {
		w.putBreak()
	}
	for w.column < indent {
		w.put(' ')
	}
	w.whitespace = true
	w.indention = true
}

func (w *yamlWriter) writeIndicator(indicator string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !w.whitespace {
		w.put(' ')
	}
	w.writeAll(indicator)
	w.whitespace = isWhitespace
	w.indention = w.indention && isIndention
}

func (w *yamlWriter) node(v any, root, sequence, mapping, simpleKey bool) {
	w.setContext(root, sequence, mapping, simpleKey)
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || w.flowLevel > 0 {
			w.flowMapping(x)
		} else {
			w.blockMapping(x)
		}
	case []any:
		if len(x) == 0 || w.flowLevel > 0 {
			w.flowSequence(x)
		} else {
			w.blockSequence(x)
		}
	case string:
		sc := newStringScalar(x)
		sc.analyze()
		w.scalar(sc)
	case float64:
		sc := yamlScalar{value: yamlNumber(x), style: plainStyle}
		sc.analyze()
		w.scalar(sc)
	case bool:
		sc := yamlScalar{value: strconv.FormatBool(x), style: plainStyle}
		sc.analyze()
		w.scalar(sc)
	case nil:
		sc := yamlScalar{value: "null", style: plainStyle}
		sc.analyze()
		w.scalar(sc)
	default:
		// The tree comes from encoding/json; anything else is a platc bug
		// caught by the caller's tests, so fail loudly.
		panic("emit: YAML of a value encoding/json does not produce")
	}
}

func (w *yamlWriter) blockMapping(m map[string]any) {
	w.increaseIndent(false, false)
	for _, k := range sortedYAMLKeys(m) {
		w.writeIndent()
		key := newStringScalar(k)
		key.analyze()
		// yaml_emitter_check_simple_key: one line, at most 128 bytes.
		if !key.multiline && len(k) <= 128 {
			w.setContext(false, false, true, true)
			w.scalar(key)
			w.writeIndicator(":", false, false, false)
		} else {
			w.writeIndicator("?", true, false, true)
			w.setContext(false, false, true, false)
			w.scalar(key)
			w.writeIndent()
			w.writeIndicator(":", true, false, true)
		}
		w.node(m[k], false, false, true, false)
	}
	w.popIndent()
}

func (w *yamlWriter) setContext(root, sequence, mapping, simpleKey bool) {
	w.rootCtx, w.sequenceCtx, w.mappingCtx, w.simpleKeyCtx = root, sequence, mapping, simpleKey
}

func (w *yamlWriter) blockSequence(s []any) {
	w.increaseIndent(false, w.mappingCtx && !w.indention)
	for _, item := range s {
		w.writeIndent()
		w.writeIndicator("-", true, false, true)
		w.node(item, false, true, false, false)
	}
	w.popIndent()
}

// flowMapping and flowSequence write empty collections, the only ones a
// block document holds in flow style (a non-empty one inside them cannot
// occur).
func (w *yamlWriter) flowMapping(m map[string]any) {
	w.writeIndicator("{", true, true, false)
	w.increaseIndent(true, false)
	w.flowLevel++
	for i, k := range sortedYAMLKeys(m) {
		if i > 0 {
			w.writeIndicator(",", false, false, false)
		}
		if w.column > yamlBestWidth {
			w.writeIndent()
		}
		key := newStringScalar(k)
		key.analyze()
		if !key.multiline && len(k) <= 128 {
			w.setContext(false, false, true, true)
			w.scalar(key)
			w.writeIndicator(":", false, false, false)
		} else {
			w.writeIndicator("?", true, false, false)
			w.setContext(false, false, true, false)
			w.scalar(key)
			if w.column > yamlBestWidth {
				w.writeIndent()
			}
			w.writeIndicator(":", true, false, false)
		}
		w.node(m[k], false, false, true, false)
	}
	w.flowLevel--
	w.popIndent()
	w.writeIndicator("}", false, false, false)
}

func (w *yamlWriter) flowSequence(s []any) {
	w.writeIndicator("[", true, true, false)
	w.increaseIndent(true, false)
	w.flowLevel++
	for i, item := range s {
		if i > 0 {
			w.writeIndicator(",", false, false, false)
		}
		if w.column > yamlBestWidth {
			w.writeIndent()
		}
		w.node(item, false, true, false, false)
	}
	w.flowLevel--
	w.popIndent()
	w.writeIndicator("]", false, false, false)
}

// yamlScalar is a scalar and what libyaml's analysis found in it.
type yamlScalar struct {
	value string
	// style is what go-yaml's encoder asks for; the emitter may pick
	// another one (selectStyle).
	style scalarStyle

	multiline           bool
	flowPlainAllowed    bool
	blockPlainAllowed   bool
	singleQuotedAllowed bool
	blockAllowed        bool
}

// newStringScalar is go-yaml's encoder.stringv: the style it requests
// for a string.
func newStringScalar(s string) yamlScalar {
	switch {
	case strings.Contains(s, "\n"):
		return yamlScalar{value: s, style: literalStyle}
	case resolvesToString(s) && !isBase60Float(s):
		return yamlScalar{value: s, style: plainStyle}
	}
	return yamlScalar{value: s, style: doubleQuotedStyle}
}

// scalar writes an analyzed scalar in the current context.
func (w *yamlWriter) scalar(sc yamlScalar) {
	style := w.selectStyle(&sc)
	w.increaseIndent(true, false)
	allowBreaks := !w.simpleKeyCtx
	switch style {
	case plainStyle:
		w.writePlain(sc.value, allowBreaks)
	case singleQuotedStyle:
		w.writeSingleQuoted(sc.value, allowBreaks)
	case doubleQuotedStyle:
		w.writeDoubleQuoted(sc.value, allowBreaks)
	case literalStyle:
		w.writeLiteral(sc.value)
	}
	w.popIndent()
}

// selectStyle is yaml_emitter_select_scalar_style.
func (w *yamlWriter) selectStyle(sc *yamlScalar) scalarStyle {
	style := sc.style
	if w.simpleKeyCtx && sc.multiline {
		style = doubleQuotedStyle
	}
	if style == plainStyle {
		if w.flowLevel > 0 && !sc.flowPlainAllowed || w.flowLevel == 0 && !sc.blockPlainAllowed {
			style = singleQuotedStyle
		}
		if len(sc.value) == 0 && (w.flowLevel > 0 || w.simpleKeyCtx) {
			style = singleQuotedStyle
		}
	}
	if style == singleQuotedStyle && !sc.singleQuotedAllowed {
		style = doubleQuotedStyle
	}
	if style == literalStyle && (!sc.blockAllowed || w.flowLevel > 0 || w.simpleKeyCtx) {
		style = doubleQuotedStyle
	}
	return style
}

// plainSafe marks the bytes that can never make libyaml's analysis
// restrict a scalar: letters, digits and - . / _ (except a lone "-", and
// a leading "---" or "...").
var plainSafe = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '/' || c == '_'
	}
	return t
}()

// analyze is yaml_emitter_analyze_scalar: which styles can hold the value.
func (sc *yamlScalar) analyze() {
	value := sc.value
	if len(value) > 0 && value != "-" && !strings.HasPrefix(value, "---") && !strings.HasPrefix(value, "...") {
		// Most scalars are names and paths: every style allows them, and
		// checking that is a table lookup per byte.
		safe := true
		for i := 0; i < len(value); i++ {
			if !plainSafe[value[i]] {
				safe = false
				break
			}
		}
		if safe {
			sc.multiline = false
			sc.flowPlainAllowed, sc.blockPlainAllowed, sc.singleQuotedAllowed, sc.blockAllowed = true, true, true, true
			return
		}
	}
	if len(value) == 0 {
		sc.multiline = false
		sc.flowPlainAllowed = false
		sc.blockPlainAllowed = true
		sc.singleQuotedAllowed = true
		sc.blockAllowed = false
		return
	}
	var (
		blockIndicators, flowIndicators, lineBreaks, specialCharacters bool
		leadingSpace, leadingBreak, trailingSpace, trailingBreak       bool
		breakSpace, spaceBreak                                         bool
		previousSpace, previousBreak                                   bool
	)
	if strings.HasPrefix(value, "---") || strings.HasPrefix(value, "...") {
		blockIndicators = true
		flowIndicators = true
	}
	precededByWhitespace := true
	for i, w := 0, 0; i < len(value); i += w {
		w = utf8Width(value[i])
		followedByWhitespace := i+w >= len(value) || isBlank(value, i+w)
		if i == 0 {
			switch value[i] {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowIndicators = true
				blockIndicators = true
			case '?', ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					flowIndicators = true
					blockIndicators = true
				}
			}
		} else {
			switch value[i] {
			case ',', '?', '[', ']', '{', '}':
				flowIndicators = true
			case ':':
				flowIndicators = true
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					flowIndicators = true
					blockIndicators = true
				}
			}
		}
		// go-yaml's encoder turns unicode output on, so only
		// non-printable characters are special.
		if !isPrintable(value, i) {
			specialCharacters = true
		}
		switch {
		case value[i] == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(value) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace = true
			previousBreak = false
		case isBreak(value, i):
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(value) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace = false
			previousBreak = true
		default:
			previousSpace = false
			previousBreak = false
		}
		precededByWhitespace = isBlankz(value, i)
	}
	sc.multiline = lineBreaks
	sc.flowPlainAllowed = true
	sc.blockPlainAllowed = true
	sc.singleQuotedAllowed = true
	sc.blockAllowed = true
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		sc.flowPlainAllowed = false
		sc.blockPlainAllowed = false
	}
	if trailingSpace {
		sc.blockAllowed = false
	}
	if breakSpace {
		sc.flowPlainAllowed = false
		sc.blockPlainAllowed = false
		sc.singleQuotedAllowed = false
	}
	if spaceBreak || specialCharacters {
		sc.flowPlainAllowed = false
		sc.blockPlainAllowed = false
		sc.singleQuotedAllowed = false
		sc.blockAllowed = false
	}
	if lineBreaks {
		sc.flowPlainAllowed = false
		sc.blockPlainAllowed = false
	}
	if flowIndicators {
		sc.flowPlainAllowed = false
	}
	if blockIndicators {
		sc.blockPlainAllowed = false
	}
}

func (w *yamlWriter) writePlain(value string, allowBreaks bool) {
	if !w.whitespace {
		w.put(' ')
	}
	if plainRun(value) {
		// No space to fold at and no line break: the bytes as they are.
		w.buf = append(w.buf, value...)
		w.column += len(value)
		w.whitespace = false
		w.indention = false
		return
	}
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && w.column > yamlBestWidth && (i+1 == len(value) || value[i+1] != ' ') {
				w.writeIndent()
				i++
			} else {
				i = w.write(value, i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				w.putBreak()
			}
			i = w.writeBreak(value, i)
			w.indention = true
			breaks = true
		default:
			if breaks {
				w.writeIndent()
			}
			i = w.write(value, i)
			w.indention = false
			spaces, breaks = false, false
		}
	}
	w.whitespace = false
	w.indention = false
}

func (w *yamlWriter) writeSingleQuoted(value string, allowBreaks bool) {
	w.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && w.column > yamlBestWidth && i > 0 && i < len(value)-1 && value[i+1] != ' ' {
				w.writeIndent()
				i++
			} else {
				i = w.write(value, i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				w.putBreak()
			}
			i = w.writeBreak(value, i)
			w.indention = true
			breaks = true
		default:
			if breaks {
				w.writeIndent()
			}
			if value[i] == '\'' {
				w.put('\'')
			}
			i = w.write(value, i)
			w.indention = false
			spaces, breaks = false, false
		}
	}
	w.writeIndicator("'", false, false, false)
	w.whitespace = false
	w.indention = false
}

func (w *yamlWriter) writeDoubleQuoted(value string, allowBreaks bool) {
	spaces := false
	w.writeIndicator(`"`, true, false, false)
	// libyaml's is_bom looks at the start of the value wherever it is
	// asked about, so a value that starts with a byte order mark has
	// every character escaped.
	bom := strings.HasPrefix(value, "\uFEFF")
	for i := 0; i < len(value); {
		switch {
		case !isPrintable(value, i) || bom || isBreak(value, i) || value[i] == '"' || value[i] == '\\':
			r, n := utf8.DecodeRuneInString(value[i:])
			i += n
			w.put('\\')
			switch r {
			case 0x00:
				w.put('0')
			case 0x07:
				w.put('a')
			case 0x08:
				w.put('b')
			case 0x09:
				w.put('t')
			case 0x0A:
				w.put('n')
			case 0x0b:
				w.put('v')
			case 0x0c:
				w.put('f')
			case 0x0d:
				w.put('r')
			case 0x1b:
				w.put('e')
			case 0x22:
				w.put('"')
			case 0x5c:
				w.put('\\')
			case 0x85:
				w.put('N')
			case 0xA0:
				w.put('_')
			case 0x2028:
				w.put('L')
			case 0x2029:
				w.put('P')
			default:
				digits := 8
				switch {
				case r <= 0xFF:
					w.put('x')
					digits = 2
				case r <= 0xFFFF:
					w.put('u')
					digits = 4
				default:
					w.put('U')
				}
				for k := (digits - 1) * 4; k >= 0; k -= 4 {
					w.put("0123456789ABCDEF"[(r>>uint(k))&0x0F])
				}
			}
			spaces = false
		case value[i] == ' ':
			if allowBreaks && !spaces && w.column > yamlBestWidth && i > 0 && i < len(value)-1 {
				w.writeIndent()
				if value[i+1] == ' ' {
					w.put('\\')
				}
				i++
			} else {
				i = w.write(value, i)
			}
			spaces = true
		default:
			i = w.write(value, i)
			spaces = false
		}
	}
	w.writeIndicator(`"`, false, false, false)
	w.whitespace = false
	w.indention = false
}

// writeBlockScalarHints writes the indentation indicator (a value that
// starts with a space or a line break) and the chomping indicator: "-"
// without a final line break, "+" with more than one.
func (w *yamlWriter) writeBlockScalarHints(value string) {
	if value[0] == ' ' || isBreak(value, 0) {
		w.writeIndicator(string(rune('0'+yamlBestIndent)), false, false, false)
	}
	chomp := ""
	i := len(value) - 1
	for value[i]&0xC0 == 0x80 {
		i--
	}
	switch {
	case !isBreak(value, i):
		chomp = "-"
	case i == 0:
		chomp = "+"
	default:
		i--
		for value[i]&0xC0 == 0x80 {
			i--
		}
		if isBreak(value, i) {
			chomp = "+"
		}
	}
	if chomp != "" {
		w.writeIndicator(chomp, false, false, false)
	}
}

func (w *yamlWriter) writeLiteral(value string) {
	w.writeIndicator("|", true, false, false)
	w.writeBlockScalarHints(value)
	w.putBreak()
	w.indention = true
	w.whitespace = true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			i = w.writeBreak(value, i)
			w.indention = true
			breaks = true
		} else {
			if breaks {
				w.writeIndent()
			}
			i = w.write(value, i)
			w.indention = false
			breaks = false
		}
	}
}

// plainRun reports whether s is ASCII without spaces or line breaks:
// written plain, one byte is one column and nothing folds.
func plainRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// utf8Width is the length of the UTF-8 sequence that starts with b.
func utf8Width(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

func isBlank(s string, i int) bool { return s[i] == ' ' || s[i] == '\t' }

func isBreak(s string, i int) bool {
	return s[i] == '\r' || s[i] == '\n' ||
		s[i] == 0xC2 && s[i+1] == 0x85 ||
		s[i] == 0xE2 && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)
}

func isBlankz(s string, i int) bool { return isBlank(s, i) || isBreak(s, i) || s[i] == 0 }

// isPrintable is libyaml's is_printable on UTF-8: line feed, printable
// ASCII, and most of the BMP; never a 4-byte character.
func isPrintable(s string, i int) bool {
	b := s[i]
	return b == 0x0A ||
		b >= 0x20 && b <= 0x7E ||
		b == 0xC2 && s[i+1] >= 0xA0 ||
		b > 0xC2 && b < 0xED ||
		b == 0xED && s[i+1] < 0xA0 ||
		b == 0xEE ||
		b == 0xEF && !(s[i+1] == 0xBB && s[i+2] == 0xBF) && !(s[i+1] == 0xBF && (s[i+2] == 0xBE || s[i+2] == 0xBF))
}

// yamlNumber is how a float64 decoded from JSON comes out of the old
// JSON → go-yaml path: encoding/json writes it, go-yaml resolves that
// text (an int when it parses as one, else a float) and formats it again.
func yamlNumber(f float64) string {
	var b [32]byte
	text := string(appendJSONFloat(b[:0], f))
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	if u, err := strconv.ParseUint(text, 0, 64); err == nil {
		return strconv.FormatUint(u, 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// appendJSONFloat is encoding/json's float64 encoding.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// resolvesToString reports whether go-yaml v2 reads s, written plain, back
// as the string s (its resolve function): not a bool, null, number or
// timestamp of YAML 1.1.
func resolvesToString(s string) bool {
	if s == "" {
		return false // null
	}
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
		"~", "null", "Null", "NULL",
		".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		// Only these: "<<" is in go-yaml's table too, but a string
		// that starts with '<' never reaches the table.
		return false
	}
	switch c := s[0]; {
	case c == '.':
		_, err := strconv.ParseFloat(s, 64)
		return err != nil
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if isYAMLTimestamp(s) {
			return false
		}
		plain := strings.ReplaceAll(s, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return false
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return false
		}
		if yamlStyleFloat.MatchString(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return false
			}
		}
		if rest, ok := strings.CutPrefix(plain, "0b"); ok {
			if _, err := strconv.ParseInt(rest, 2, 64); err == nil {
				return false
			}
			if _, err := strconv.ParseUint(rest, 2, 64); err == nil {
				return false
			}
		} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
			if _, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
				return false
			}
		}
	}
	return true
}

var (
	yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	base60Float    = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)
)

var yamlTimestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isYAMLTimestamp is go-yaml v2's parseTimestamp: YYYY- and then one of
// the formats it accepts.
func isYAMLTimestamp(s string) bool {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, f := range yamlTimestampFormats {
		if _, err := time.Parse(f, s); err == nil {
			return true
		}
	}
	return false
}

// isBase60Float is go-yaml v2's check for YAML 1.1's sexagesimal numbers
// (1:20), which it quotes although it does not read them as numbers.
func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') || !strings.Contains(s, ":") {
		return false
	}
	return base60Float.MatchString(s)
}

// sortedYAMLKeys returns m's keys in go-yaml v2's order.
func sortedYAMLKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		switch {
		case yamlKeyLess(a, b):
			return -1
		case yamlKeyLess(b, a):
			return 1
		}
		return 0
	})
	return keys
}

// yamlKeyLess is go-yaml v2's keyList.Less for two string keys: letters
// before other characters, and runs of digits compared as numbers, so
// app-9 comes before app-10.
func yamlKeyLess(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return naturalLessASCII(a, b)
	}
	ar, br := []rune(a), []rune(b)
	return naturalLess(ar, br, func(s []rune, i int) rune { return s[i] }, len(ar), len(br))
}

// naturalLessASCII is naturalLess for ASCII strings, where a byte is a
// rune, a letter is [A-Za-z] and a digit [0-9]; most keys differ early,
// and the common prefix is skipped without looking at each byte twice.
func naturalLessASCII(a, b string) bool {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return len(a) < len(b)
	}
	ai, bi := a[i], b[i]
	al, bl := isASCIILetter(ai), isASCIILetter(bi)
	if al && bl {
		return ai < bi
	}
	if al || bl {
		return bl
	}
	var an, bn int64
	if ai == '0' || bi == '0' {
		for j := i - 1; j >= 0 && isASCIIDigit(a[j]); j-- {
			if a[j] != '0' {
				an, bn = 1, 1
				break
			}
		}
	}
	ae, be := i, i
	for ; ae < len(a) && isASCIIDigit(a[ae]); ae++ {
		an = an*10 + int64(a[ae]-'0')
	}
	for ; be < len(b) && isASCIIDigit(b[be]); be++ {
		bn = bn*10 + int64(b[be]-'0')
	}
	if an != bn {
		return an < bn
	}
	if ae != be {
		return ae < be
	}
	return ai < bi
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isASCIIDigit(c byte) bool  { return c >= '0' && c <= '9' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func naturalLess[S any](a, b S, at func(S, int) rune, na, nb int) bool {
	for i := 0; i < na && i < nb; i++ {
		ai, bi := at(a, i), at(b, i)
		if ai == bi {
			continue
		}
		al, bl := unicode.IsLetter(ai), unicode.IsLetter(bi)
		if al && bl {
			return ai < bi
		}
		if al || bl {
			return bl
		}
		var an, bn int64
		if ai == '0' || bi == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(at(a, j)); j-- {
				if at(a, j) != '0' {
					an, bn = 1, 1
					break
				}
			}
		}
		ae, be := i, i
		for ; ae < na && unicode.IsDigit(at(a, ae)); ae++ {
			an = an*10 + int64(at(a, ae)-'0')
		}
		for ; be < nb && unicode.IsDigit(at(b, be)); be++ {
			bn = bn*10 + int64(at(b, be)-'0')
		}
		if an != bn {
			return an < bn
		}
		if ae != be {
			return ae < be
		}
		return ai < bi
	}
	return na < nb
}
