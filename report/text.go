package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/english"
)

// MaxText is how many diagnostics Text prints before summarising the rest;
// a garbage file can produce thousands, and nobody reads past the first.
const MaxText = 50

// maxLine is the widest snippet line printed; longer lines are cut to a
// window around the subject.
const maxLine = 120

// TextOptions control text rendering.
type TextOptions struct {
	Color bool
}

const (
	ansiReset     = "\x1b[0m"
	ansiBold      = "\x1b[1m"
	ansiRed       = "\x1b[31m"
	ansiYellow    = "\x1b[33m"
	ansiCyan      = "\x1b[36m"
	ansiUnderline = "\x1b[4m"
)

// Text writes diags to w. files supplies source for snippets; a diagnostic
// whose file is unknown is printed without one.
func Text(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, opts TextOptions) error {
	var b strings.Builder
	for i, d := range diags {
		if i == MaxText {
			fmt.Fprintf(&b, "... and %d more diagnostics not shown; use --format json to see them all.\n\n", len(diags)-MaxText)
			break
		}
		writeOne(&b, files, d, opts)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeOne(b *strings.Builder, files map[string]*hcl.File, d *hcl.Diagnostic, opts TextOptions) {
	paint := func(codes, s string) string {
		if !opts.Color {
			return s
		}
		return codes + s + ansiReset
	}
	sev, color := "Error", ansiRed
	switch {
	case diag.IsNotice(d):
		sev, color = "Notice", ansiCyan
	case d.Severity == hcl.DiagWarning:
		sev, color = "Warning", ansiYellow
	}
	fmt.Fprintf(b, "%s: %s\n", paint(ansiBold+color, sev), paint(ansiBold, clean(d.Summary)))
	if d.Subject != nil {
		r := *d.Subject
		b.WriteString("\n")
		loc := Inline(Location(r))
		if ctx := clean(contextOf(files, r)); ctx != "" {
			fmt.Fprintf(b, "  on %s, in %s:\n", loc, ctx)
		} else {
			fmt.Fprintf(b, "  on %s:\n", loc)
		}
		writeSnippet(b, files, r, func(s string) string { return paint(ansiBold+ansiUnderline+color, s) })
	}
	if d.Detail != "" {
		b.WriteString("\n")
		b.WriteString(clean(d.Detail))
		b.WriteString("\n")
	}
	if e := diag.ExtraOf(d); e != nil && e.Rule != "" {
		fmt.Fprintf(b, "\nRule %s (docs/rules/%s.md).\n", e.Rule, e.Rule)
	}
	b.WriteString("\n")
}

// Line is a diagnostic on one line, for logs and reports:
// "file:line:col: summary: detail", the detail's whitespace collapsed.
func Line(d *hcl.Diagnostic) string {
	s := d.Summary
	if d.Detail != "" {
		s += ": " + strings.Join(strings.Fields(d.Detail), " ")
	}
	if d.Subject != nil {
		s = Location(*d.Subject) + ": " + s
	}
	return s
}

// Location formats the start of r as file:line:column.
func Location(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// contextOf names the blocks that enclose r, outermost first, such as
// `stack "storage", app "ceph-cluster"`.
func contextOf(files map[string]*hcl.File, r hcl.Range) string {
	f := files[r.Filename]
	if f == nil {
		return ""
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return ""
	}
	var parts []string
	for body != nil {
		var next *hclsyntax.Body
		for _, b := range body.Blocks {
			if !b.Range().ContainsOffset(r.Start.Byte) {
				continue
			}
			header := b.Type
			for _, l := range b.Labels {
				header += fmt.Sprintf(" %q", l)
			}
			if len(b.Labels) > 0 || len(parts) == 0 {
				parts = append(parts, header)
			}
			next = b.Body
			break
		}
		body = next
	}
	return strings.Join(parts, ", ")
}

// writeSnippet prints the first line of r with the subject underlined by
// carets (and, in colour, highlighted), so the location reads the same in
// a CI log as on a terminal.
func writeSnippet(b *strings.Builder, files map[string]*hcl.File, r hcl.Range, hl func(string) string) {
	f := files[r.Filename]
	if f == nil || r.Start.Byte > len(f.Bytes) {
		return
	}
	src := f.Bytes
	lineStart := r.Start.Byte
	for lineStart > 0 && src[lineStart-1] != '\n' {
		lineStart--
	}
	lineEnd := r.Start.Byte
	for lineEnd < len(src) && src[lineEnd] != '\n' {
		lineEnd++
	}
	subjEnd := min(max(r.End.Byte, r.Start.Byte), lineEnd)
	before := printable(src[lineStart:r.Start.Byte])
	subject := printable(src[r.Start.Byte:subjEnd])
	after := printable(src[subjEnd:lineEnd])
	// Cut very long lines to a window around the subject.
	if n := utf8.RuneCountInString(before); n > maxLine/2 {
		before = "…" + string([]rune(before)[n-maxLine/2:])
	}
	if n := utf8.RuneCountInString(subject); n > maxLine {
		subject = string([]rune(subject)[:maxLine]) + "…"
	}
	if n := utf8.RuneCountInString(after); n > maxLine/2 {
		after = string([]rune(after)[:maxLine/2]) + "…"
	}
	before = strings.ReplaceAll(before, "\t", "  ")
	num := fmt.Sprintf("%4d: ", r.Start.Line)
	fmt.Fprintf(b, "%s%s%s%s\n", num, before, hl(subject), after)
	width := max(utf8.RuneCountInString(subject), 1)
	fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", len(num)+utf8.RuneCountInString(before)), hl(strings.Repeat("^", width)))
}

// printable makes source bytes safe to print: invalid UTF-8, control
// characters (other than tab) and bidirectional controls become U+FFFD,
// so a hostile file can neither drive the terminal with escape sequences
// nor reorder what a reader sees.
func printable(p []byte) string {
	var b strings.Builder
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		p = p[size:]
		if r == utf8.RuneError || r != '\t' && ControlRune(r) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), "\r")
}

// clean makes a message safe to print: the same runes printable
// replaces, except line breaks and tabs, are written as \u escapes.
// Messages quote user text with %q, which escapes them already; file
// names and block labels may still carry them.
func clean(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && ControlRune(r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r != '\n' && r != '\t' && ControlRune(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Inline makes text from the input safe to print inside one line of
// output (a terminal line, a report line, an HCL comment): line breaks,
// tabs, the runes clean escapes and other invisible format characters
// (zero-width, U+2028) become \u escapes and invalid UTF-8 becomes
// U+FFFD, so a file name can neither start a line of its own nor drive
// the terminal.
func Inline(s string) string {
	bad := func(r rune) bool {
		return r == utf8.RuneError || ControlRune(r) || r == 0x85 || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	}
	if utf8.ValidString(s) && !strings.ContainsFunc(s, bad) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteRune('\uFFFD')
				continue
			}
			b.WriteRune(r)
		case bad(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ControlRune reports control characters (C0, DEL, C1) and bidirectional
// controls: what no text from outside platc may print raw. The executor's
// log escaping builds on it too.
func ControlRune(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}

// Counts returns the number of errors and warnings in diags. Lint notices
// are neither; Notices counts them.
func Counts(diags hcl.Diagnostics) (errors, warnings int) {
	for _, d := range diags {
		switch {
		case d.Severity == hcl.DiagError:
			errors++
		case !diag.IsNotice(d):
			warnings++
		}
	}
	return errors, warnings
}

// Notices returns the number of lint notices in diags.
func Notices(diags hcl.Diagnostics) int {
	n := 0
	for _, d := range diags {
		if diag.IsNotice(d) {
			n++
		}
	}
	return n
}

// Summary is a one-line count such as "2 errors, 1 warning"; notices are
// counted only when there are some ("0 errors, 0 warnings, 3 notices").
func Summary(diags hcl.Diagnostics) string {
	e, w := Counts(diags)
	s := fmt.Sprintf("%d %s, %d %s", e, english.Plural(e, "error"), w, english.Plural(w, "warning"))
	if n := Notices(diags); n > 0 {
		s += fmt.Sprintf(", %d %s", n, english.Plural(n, "notice"))
	}
	return s
}
