package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

func parsed(t *testing.T, src string) map[string]*hcl.File {
	t.Helper()
	p := hclparse.NewParser()
	if _, diags := p.ParseHCL([]byte(src), "p.hcl"); diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p.Files()
}

func TestTextColourOnlyWhenAsked(t *testing.T) {
	files := parsed(t, "app \"web\" {\n  class = \"x\"\n}\n")
	r := hcl.Range{Filename: "p.hcl", Start: hcl.Pos{Line: 2, Column: 11, Byte: 22}, End: hcl.Pos{Line: 2, Column: 14, Byte: 25}}
	d := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unknown class", Detail: "Fix it.", Subject: &r}}
	var plain, colour bytes.Buffer
	Text(&plain, files, d, TextOptions{})
	Text(&colour, files, d, TextOptions{Color: true})
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("plain output has escape codes:\n%q", plain.String())
	}
	if !strings.Contains(colour.String(), "\x1b[") {
		t.Errorf("colour output has no escape codes")
	}
	want := "Error: Unknown class\n\n  on p.hcl:2:11, in app \"web\":\n   2:   class = \"x\"\n                ^^^\n\nFix it.\n\n"
	if plain.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", plain.String(), want)
	}
}

// A subject deep in a very long line is shown in a window around it, and
// invalid bytes never reach the terminal.
func TestTextLongLinesAndBadBytes(t *testing.T) {
	line := strings.Repeat("x", 5000) + "BAD\xff" + strings.Repeat("y", 5000)
	files := map[string]*hcl.File{"g.hcl": {Bytes: []byte(line)}}
	r := hcl.Range{Filename: "g.hcl", Start: hcl.Pos{Line: 1, Column: 5001, Byte: 5000}, End: hcl.Pos{Line: 1, Column: 5005, Byte: 5004}}
	var out bytes.Buffer
	Text(&out, files, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Garbage", Subject: &r}}, TextOptions{})
	for _, l := range strings.Split(out.String(), "\n") {
		if len([]rune(l)) > 2*maxLine+20 {
			t.Errorf("line of %d characters printed", len([]rune(l)))
		}
	}
	if !strings.Contains(out.String(), "BAD\uFFFD") || strings.Contains(out.String(), "\xff") {
		t.Errorf("invalid byte not replaced:\n%q", out.String())
	}
}

func TestTextCapsOutput(t *testing.T) {
	var diags hcl.Diagnostics
	for range MaxText + 7 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Bad"})
	}
	var out bytes.Buffer
	Text(&out, nil, diags, TextOptions{})
	if n := strings.Count(out.String(), "Error: Bad"); n != MaxText {
		t.Errorf("printed %d diagnostics, want %d", n, MaxText)
	}
	if !strings.Contains(out.String(), "and 7 more diagnostics") {
		t.Errorf("missing the count of hidden diagnostics")
	}
}

// TestTextNoTerminalControl: nothing from the input reaches the terminal
// as a control: not an escape sequence in the source line, a file name
// or a block label, nor a bidirectional control.
func TestTextNoTerminalControl(t *testing.T) {
	src := "app \"\x1b[2J\u202e\" {\n  class = \"\x1b]0;owned\x07\"\n}\n"
	name := "evil\x1b[31m.hcl"
	files := map[string]*hcl.File{name: {Bytes: []byte(src)}}
	p := hclparse.NewParser()
	if f, _ := p.ParseHCL([]byte(src), name); f != nil {
		files[name] = f
	}
	r := hcl.Range{Filename: name, Start: hcl.Pos{Line: 2, Column: 11, Byte: 28}, End: hcl.Pos{Line: 2, Column: 20, Byte: 37}}
	d := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Bad \x1b[1m thing", Detail: "Detail with \u2066 and \u009b.\nSecond line.", Subject: &r}}
	var out bytes.Buffer
	Text(&out, files, d, TextOptions{})
	for _, c := range out.String() {
		if c != '\n' && c != '\t' && ControlRune(c) {
			t.Fatalf("output holds %U:\n%q", c, out.String())
		}
	}
	if !strings.Contains(out.String(), "Detail with \\u2066 and \\u009b.\nSecond line.") {
		t.Errorf("detail not escaped as expected:\n%s", out.String())
	}
}

// One line per diagnostic for logs: location, summary and the detail
// with its line breaks and runs of blanks collapsed.
func TestLine(t *testing.T) {
	r := hcl.Range{Filename: "p.hcl", Start: hcl.Pos{Line: 3, Column: 7}}
	for _, tc := range []struct {
		d    *hcl.Diagnostic
		want string
	}{
		{&hcl.Diagnostic{Summary: "Bad", Detail: "Fix  it\nnow.", Subject: &r}, "p.hcl:3:7: Bad: Fix it now."},
		{&hcl.Diagnostic{Summary: "Bad", Subject: &r}, "p.hcl:3:7: Bad"},
		{&hcl.Diagnostic{Summary: "No platform", Detail: "Add one."}, "No platform: Add one."},
	} {
		if got := Line(tc.d); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
