package logging

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/platc/platc/report"
)

// Escape makes text from outside platc (the cluster, an API error, a
// library) safe in a log line or the report: control characters (C0
// other than line feed and tab, DEL, C1), the Unicode line and paragraph
// separators and bidirectional controls become \u escapes, and invalid
// UTF-8 becomes U+FFFD. An Application message with ESC, CR or U+2028
// could otherwise drive the terminal or forge a line of the log (issue
// 21). Line feeds stay: text lines fold them, JSON encodes them.
func Escape(s string) string {
	if !strings.ContainsFunc(s, escaped) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune('\uFFFD')
		case escaped(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// escaped is report's control runes but line feed and tab, and the
// Unicode line and paragraph separators.
func escaped(r rune) bool {
	return r != '\n' && r != '\t' && report.ControlRune(r) || r == 0x2028 || r == 0x2029
}
