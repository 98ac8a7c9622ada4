package lang

import (
	"strings"
	"testing"
)

// TestParseText: control and bidirectional characters are refused at
// their place, however they are written.
func TestParseText(t *testing.T) {
	for name, src := range map[string]string{
		"NUL escape":       `a = "x\u0000y"`,
		"escape character": `a = "\u001b[2J"`,
		"C1 control":       `a = "\u009b31m"`,
		"bidi in string":   "a = \"admin\u202e \u2066// check\u2069\u2066\"",
		"bidi in label":    "app \"web\u202e\" {}",
		"bidi in comment":  "# access \u202e granted\na = 1",
		"raw NUL, heredoc": "a = <<EOT\nx\x00\nEOT",
		"raw ESC, string":  "a = \"\x1b[2J\"",
		"NUL in key":       `a = { "k\u0000" = 1 }`,
	} {
		src := "platform \"acme\" {}\nenvironment \"x\" {\n  " + src + "\n}\n"
		_, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
		if !diags.HasErrors() {
			t.Errorf("%s: accepted", name)
			continue
		}
		s := diags[0].Summary
		if s != "Control character in string" && s != "Bidirectional control character" {
			t.Errorf("%s: %v", name, diags)
		}
		if r := diags[0].Subject; r == nil || r.Start.Line < 2 {
			t.Errorf("%s: subject %v", name, r)
		}
	}
	ok := "platform \"acme\" {}\nenvironment \"x\" {\n  a = \"tab\\there\\nnew line, עברית, 日本語\"\n}\n"
	if _, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(ok)}}); diags.HasErrors() {
		t.Errorf("ordinary text refused: %v", diags)
	}
	long := "platform \"acme\" {}\nenvironment \"x\" {\n  a = \"" + strings.Repeat("x", MaxStringLength+1) + "\"\n}\n"
	if _, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(long)}}); !diags.HasErrors() || diags[0].Summary != "String too long" {
		t.Errorf("long string: %v", diags)
	}
}
