package lang

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// deep builds an attribute whose value nests n levels in the way f says.
func deep(n int, f func(n int) string) []byte {
	return []byte("platform \"acme\" {}\nenvironment \"x\" {\n  v = " + f(n) + "\n}\n")
}

var shapes = map[string]func(n int) string{
	"parens":    func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) },
	"lists":     func(n int) string { return strings.Repeat("[", n) + "1" + strings.Repeat("]", n) },
	"objects":   func(n int) string { return strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) },
	"not":       func(n int) string { return strings.Repeat("!", n) + "true" },
	"negate":    func(n int) string { return strings.Repeat("-", n) + "1" },
	"sum":       func(n int) string { return "1" + strings.Repeat("+1", n) },
	"ternary":   func(n int) string { return strings.Repeat("true ? 1 : ", n) + "2" },
	"index":     func(n int) string { return "[1]" + strings.Repeat("[0]", n) },
	"templates": func(n int) string { return strings.Repeat(`"${`, n) + "1" + strings.Repeat(`}"`, n) },
	"directives": func(n int) string {
		return `"` + strings.Repeat("%{ if true }", n) + "x" + strings.Repeat("%{ endif }", n) + `"`
	},
	"heredoc": func(n int) string {
		return "<<EOT\n" + strings.Repeat("${(", n) + "1" + strings.Repeat(")}", n) + "\nEOT"
	},
	"split lines": func(n int) string { return "(1" + strings.Repeat("\n+ 1", n) + ")" },
	"for object": func(n int) string {
		return "{ # a comment first\nfor k, v in {} : k => 1" + strings.Repeat("\n+ 1", n) + "}"
	},
}

// TestNestingRefused: every shape of deep nesting is refused at its
// position with a diagnostic, without reaching HCL's parser, even at
// 100,000 levels.
func TestNestingRefused(t *testing.T) {
	for name, f := range shapes {
		for _, n := range []int{MaxNesting + 1, 100_000} {
			src := deep(n, f)
			_, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: src}})
			if len(diags) != 1 || diags[0].Summary != "Expression nested too deeply" {
				t.Errorf("%s at %d: diagnostics = %v, want one \"Expression nested too deeply\"", name, n, diags)
				continue
			}
			if r := diags[0].Subject; r == nil || r.Start.Line < 3 || r.Filename != "p.hcl" {
				t.Errorf("%s at %d: subject %v is not in the attribute", name, n, r)
			}
		}
	}
}

// TestNestingAccepted: what real platforms write passes, and so does a
// shape just inside the limit.
func TestNestingAccepted(t *testing.T) {
	for name, f := range shapes {
		src := deep(20, f)
		if d := checkSource("p.hcl", src, hcl.InitialPos); d.HasErrors() {
			t.Errorf("%s at 20 levels refused: %v", name, d)
		}
	}
	// Many items at one level are not nesting.
	wide := "[" + strings.Repeat(`"${a}${b}" + 1, `, 10_000) + "1]"
	if d := checkSource("p.hcl", deep(0, func(int) string { return wide }), hcl.InitialPos); d.HasErrors() {
		t.Errorf("a wide list was refused: %v", d)
	}
	src, err := os.ReadFile("../examples/platform.hcl")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := scanDepth(src)
	if !ok || d > 40 {
		t.Errorf("the example measures %d (scanner ok %v); real platforms stay below 40", d, ok)
	}
	if exact, _ := tokenDepth("p.hcl", src, hcl.InitialPos, MaxNesting); exact > d {
		t.Errorf("the example: scanner %d < lexer %d", d, exact)
	}
}

// TestScanDepthNeverLower checks the scanner against the lexer on the
// shapes and on the fuzz seeds: when the scanner answers, its answer is
// never lower.
func TestScanDepthNeverLower(t *testing.T) {
	for name, f := range shapes {
		for _, n := range []int{0, 1, 5, 50} {
			checkScanner(t, fmt.Sprintf("%s/%d", name, n), deep(n, f))
		}
	}
}

func checkScanner(t *testing.T, name string, src []byte) {
	t.Helper()
	fast, ok := scanDepth(src)
	if !ok {
		return
	}
	exact, _ := tokenDepth("f.hcl", src, hcl.InitialPos, 1<<30)
	if fast < exact {
		t.Errorf("%s: scanner says %d, lexer %d, for:\n%s", name, fast, exact, src)
	}
}

// FuzzNesting: the scanner's measure is never below the lexer's, so
// the fast path never lets through what the lexer would refuse; and
// ParseSources never crashes on any input, however deep.
func FuzzNesting(f *testing.F) {
	for _, fn := range shapes {
		f.Add(deep(3, fn))
	}
	f.Add([]byte("a = \"${\"${\"x\"}\"}\" # c\nb = {\n for k in x: k => a\n + 1 }\n"))
	f.Add([]byte("x = a.b[c][d].e + (f(g, h)...) * !i ? j : k\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		checkScanner(t, "input", src)
		ParseSources([]SourceFile{{Name: "f.hcl", Bytes: src}})
	})
}
