package emit

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file writes the YAML of every Kubernetes object platc emits.
//
// It used to come from sigs.k8s.io/yaml: the object marshalled to JSON,
// that JSON parsed again by go-yaml into maps, and the maps marshalled by
// go-yaml's reflective encoder. On a 10,000-app platform those detours
// were most of platc build's time, and even go-yaml's encoder on its own
// (given encoding/json's tree) kept a build at about 3 s and 500 MB, over
// the budget. The input here is only ever a tree as encoding/json decodes
// it, which needs a small fraction of a YAML emitter, so platc writes it
// directly, in a style of its own chosen to be unambiguous rather than
// minimal:
//
//   - keys in Kubernetes' conventional order (CompareKeys): apiVersion,
//     kind, metadata, spec first and status last in an object, name first
//     in a named item (a DAG task, template, parameter, container), the
//     rest bytewise; two-space indents, a sequence inside a mapping not
//     indented (kubectl's and Argo's style), empty collections as {} and
//     [];
//   - a string is plain only when it is made of letters, digits and
//     " ._/-+@=~:" with nothing at either end or after a colon that YAML
//     reads specially, and
//     no YAML 1.1 or 1.2 resolver turns it into a boolean, null, number or
//     date (PyYAML, which Ansible uses, reads YAML 1.1; Kubernetes'
//     go-yaml too); everything else is quoted, in single quotes when it
//     holds a double quote or backslash and needs no escape, in double
//     quotes otherwise;
//   - a string holding line breaks is a literal block ("|", "|-", "|+"),
//     so scripts and Lua read as they are, unless a literal block cannot
//     carry it exactly (leading blanks, lines of only blanks, control
//     characters), when it is double-quoted;
//   - lines are never folded, so a diff of a long value is one line.
//
// TestYAMLRoundTrip and FuzzYAML parse the output back with go-yaml v2
// and v3 and require the same tree; the emitters' tests feed every file to
// Argo's validator, kubeconform and ansible-playbook.

// appendYAMLDocument appends one YAML document holding v, a tree as
// encoding/json decodes into any (map[string]any, []any, string, float64,
// bool, nil).
func appendYAMLDocument(buf []byte, v any) []byte {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			return appendMapping(buf, x, 0)
		}
	case []any:
		if len(x) > 0 {
			return appendSequence(buf, x, 0)
		}
	}
	buf = appendInline(buf, v, 2)
	return append(buf, '\n')
}

// appendMapping writes a non-empty mapping whose keys start at column
// indent; the first key is written where the buffer is (after "- " in a
// sequence item), the others on lines of their own.
func appendMapping(buf []byte, m map[string]any, indent int) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, CompareKeys)
	for i, k := range keys {
		if i > 0 {
			buf = appendSpaces(buf, indent)
		}
		buf = appendKey(buf, k, indent)
		buf = appendValue(buf, m[k], indent)
	}
	return buf
}

// CompareKeys orders the keys of a mapping as Kubernetes' own manifests
// and documentation write them, so a reviewer reads what a thing is
// before its body: a few keys by rank, the others bytewise between them.
// The ranks hold in every mapping, whatever its depth, and give
//   - an object: apiVersion, kind, metadata, spec, ..., status;
//   - a reference (roleRef, subjects, ownerReferences, Argo CD's
//     ignoreDifferences and resource lists): apiGroup, apiVersion or
//     group, kind, name, namespace, ...;
//   - a named item (metadata, a DAG task, a template, a parameter, an env
//     entry, a container, a volume): name, namespace, ...; an Argo
//     template's pod metadata follows its name.
//
// It is a total order on distinct keys, so output stays byte-deterministic.
func CompareKeys(a, b string) int {
	if ra, rb := keyRank(a), keyRank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// keyRank is a key's place in CompareKeys: below 0 before the unranked
// keys (rank 0), above 0 after them.
func keyRank(k string) int {
	switch k {
	case "apiVersion", "apiGroup", "group":
		return -6
	case "kind":
		return -5
	case "name":
		return -4
	case "namespace":
		return -3
	case "metadata":
		return -2
	case "spec":
		return -1
	case "status":
		return 1
	}
	return 0
}

// appendSequence writes a non-empty sequence whose dashes start at column
// indent, the first where the buffer is.
func appendSequence(buf []byte, s []any, indent int) []byte {
	for i, item := range s {
		if i > 0 {
			buf = appendSpaces(buf, indent)
		}
		buf = append(buf, '-')
		switch x := item.(type) {
		case map[string]any:
			if len(x) > 0 {
				buf = append(buf, ' ')
				buf = appendMapping(buf, x, indent+2)
				continue
			}
		case []any:
			if len(x) > 0 {
				buf = append(buf, ' ')
				buf = appendSequence(buf, x, indent+2)
				continue
			}
		}
		buf = append(buf, ' ')
		buf = appendInline(buf, item, indent+2)
		buf = append(buf, '\n')
	}
	return buf
}

// appendKey writes "key:" (the value follows). YAML limits an implicit
// key to 1024 characters as written; a longer one is written as an
// explicit "? key" entry.
func appendKey(buf []byte, k string, indent int) []byte {
	start := len(buf)
	buf = appendFlowScalar(buf, k)
	if len(buf)-start < 1000 {
		return append(buf, ':')
	}
	buf = append(buf[:start], "? "...)
	buf = appendFlowScalar(buf, k)
	buf = append(buf, '\n')
	buf = appendSpaces(buf, indent)
	return append(buf, ':')
}

// appendValue writes a mapping's value after "key:", ending the line.
func appendValue(buf []byte, v any, indent int) []byte {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			buf = append(buf, '\n')
			buf = appendSpaces(buf, indent+2)
			return appendMapping(buf, x, indent+2)
		}
	case []any:
		if len(x) > 0 {
			// Not indented under its key, as kubectl writes it.
			buf = append(buf, '\n')
			buf = appendSpaces(buf, indent)
			return appendSequence(buf, x, indent)
		}
	}
	buf = append(buf, ' ')
	buf = appendInline(buf, v, indent+2)
	return append(buf, '\n')
}

// appendInline writes a scalar or an empty collection at the end of a
// line. A literal block's lines are indented to indent.
func appendInline(buf []byte, v any, indent int) []byte {
	switch x := v.(type) {
	case map[string]any:
		return append(buf, "{}"...)
	case []any:
		return append(buf, "[]"...)
	case string:
		if strings.IndexByte(x, '\n') >= 0 && literalSafe(x) {
			return appendLiteral(buf, x, indent)
		}
		return appendFlowScalar(buf, x)
	case float64:
		return appendNumber(buf, x)
	case bool:
		return strconv.AppendBool(buf, x)
	case nil:
		return append(buf, "null"...)
	}
	// The tree comes from encoding/json; anything else is a platc bug that
	// the emitters' tests catch, so fail loudly.
	panic("emit: YAML of a value encoding/json does not produce")
}

// appendNumber writes a number as encoding/json does (digits, with a
// fraction when there is one), except that an exponent always follows a
// fraction ("1.0e+21"): PyYAML's YAML 1.1 reads "1e+21" as a string.
func appendNumber(buf []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(buf, f, 'f', -1, 64)
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, 'e', -1, 64)
	e := start + bytes.IndexByte(buf[start:], 'e')
	if bytes.IndexByte(buf[start:e], '.') >= 0 {
		return buf
	}
	exp := string(buf[e:])
	buf = append(buf[:e], ".0"...)
	return append(buf, exp...)
}

// appendFlowScalar writes s plain when that is safe; otherwise
// single-quoted when it holds a quote or backslash and nothing that needs
// an escape (JSON in a parameter reads better so), double-quoted else.
func appendFlowScalar(buf []byte, s string) []byte {
	if plainSafe(s) {
		return append(buf, s...)
	}
	if strings.ContainsAny(s, "\"\\") && !needsEscapes(s) {
		buf = append(buf, '\'')
		for i := 0; i < len(s); i++ {
			if s[i] == '\'' {
				buf = append(buf, '\'')
			}
			buf = append(buf, s[i])
		}
		return append(buf, '\'')
	}
	return appendDoubleQuoted(buf, s)
}

// needsEscapes reports whether s holds a character only a double-quoted
// scalar can carry: a control character (tab included) or one that
// needsEscape forbids raw.
func needsEscapes(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7F || needsEscape(r) {
			return true
		}
	}
	return false
}

// plainChar marks the bytes a plain scalar may hold: none of them is a
// YAML indicator or comment start wherever it appears.
var plainChar = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range " ._/-+@=~:" {
		t[c] = true
	}
	return t
}()

// plainSafe reports whether s can be written without quotes and read back
// as the same string by a YAML 1.1 or 1.2 parser.
func plainSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !plainChar[s[i]] {
			return false
		}
	}
	first, last := s[0], s[len(s)-1]
	// Only a letter, digit, "/" or "_" may start it: "-" and "." begin
	// indicators, numbers and .inf; "=", "@", "~" and ":" mean something
	// to YAML 1.1 or are reserved. A trailing blank would be dropped, a
	// trailing colon would end a key.
	if !isAlnum(first) && first != '/' && first != '_' || last == ' ' || last == ':' {
		return false
	}
	// ": " separates a key from its value.
	if strings.Contains(s, ": ") {
		return false
	}
	if isDigit(first) {
		return !mayResolveToNumber(s)
	}
	return !isYAMLWord(s)
}

// mayResolveToNumber reports whether s, starting with a digit, could be
// read as a number, date or time by some YAML resolver. Those are made of
// digits, separators, signs, spaces and the letters of exponents, radix
// prefixes, hex digits and dates (e, x, o, b, a-f, t, z); any other
// letter makes s a string everywhere ("10m", "3h30m", "1st").
func mayResolveToNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case for letters
		if c >= 'g' && c <= 'z' && c != 'o' && c != 't' && c != 'x' && c != 'z' {
			return false
		}
	}
	return true
}

// isYAMLWord reports whether s is, in any letter case, a word that YAML
// 1.1 or 1.2 reads as a boolean or null.
func isYAMLWord(s string) bool {
	if len(s) > 5 {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// appendDoubleQuoted writes s as a double-quoted scalar, escaping what
// YAML requires and the characters some YAML readers take as line breaks
// or byte order marks.
func appendDoubleQuoted(buf []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c < 0x20 || c == 0x7F:
				buf = append(buf, '\\', 'x', hex[c>>4], hex[c&0xF])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r) {
			buf = append(buf, '\\', 'u', hex[r>>12&0xF], hex[r>>8&0xF], hex[r>>4&0xF], hex[r&0xF])
		} else {
			buf = append(buf, s[i:i+n]...)
		}
		i += n
	}
	return append(buf, '"')
}

// needsEscape reports whether a non-ASCII rune must not appear raw: the C1
// controls (U+0085 is a YAML 1.1 line break), the Unicode line and
// paragraph separators, the byte order mark, the non-characters U+FFFE
// and U+FFFF, and U+FFFD standing for invalid UTF-8 (written as itself).
func needsEscape(r rune) bool {
	return r >= 0x80 && r <= 0x9F || r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF ||
		r == utf8.RuneError
}

// literalSafe reports whether a literal block can carry s exactly: it
// starts with neither a blank nor a line break (the block's indentation is
// taken from its first line), has no line of only blanks, and holds no
// control character other than tab and newline and nothing needsEscape
// forbids.
func literalSafe(s string) bool {
	if s[0] == ' ' || s[0] == '\t' || s[0] == '\n' {
		return false
	}
	lineStart, blankOnly := 0, true
	for i, r := range s {
		switch {
		case r == '\n':
			if blankOnly && i > lineStart {
				return false
			}
			lineStart, blankOnly = i+1, true
			continue
		case r == ' ' || r == '\t':
		case r < 0x20 || r == 0x7F || needsEscape(r):
			return false
		default:
			blankOnly = false
		}
	}
	return !blankOnly || lineStart == len(s)
}

// appendLiteral writes s, which contains a line break and is literalSafe,
// as a literal block whose lines are indented to indent. The chomping
// indicator keeps the trailing line breaks exact: "|-" for none, "|" for
// one, "|+" for more.
func appendLiteral(buf []byte, s string, indent int) []byte {
	body := strings.TrimRight(s, "\n")
	switch trailing := len(s) - len(body); {
	case trailing == 0:
		buf = append(buf, "|-"...)
	case trailing == 1:
		buf = append(buf, '|')
	default:
		buf = append(buf, "|+"...)
	}
	for line := range strings.SplitSeq(body, "\n") {
		buf = append(buf, '\n')
		if line != "" {
			buf = appendSpaces(buf, indent)
			buf = append(buf, line...)
		}
	}
	// The caller ends the last line; "|+" keeps the extra breaks.
	for range len(s) - len(body) - 1 {
		buf = append(buf, '\n')
	}
	return buf
}

const spaces = "                                                                "

func appendSpaces(buf []byte, n int) []byte {
	for n > len(spaces) {
		buf = append(buf, spaces...)
		n -= len(spaces)
	}
	return append(buf, spaces[:n]...)
}
