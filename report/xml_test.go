package report

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// xmlDiags has a compiler error, a rule's warning and notice in two
// files, one diagnostic without a range, and text that would break XML
// written by hand: markup, a CDATA end, quotes and control characters.
func xmlDiags() hcl.Diagnostics {
	r := func(file string, line, col int) *hcl.Range {
		return &hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
	}
	return diag.Sort(hcl.Diagnostics{
		{Severity: hcl.DiagError, Summary: "Unknown class", Detail: "Use <one> of \"a\" & ]]> b\x00\x1b[31m.", Subject: r("b.hcl", 3, 5)},
		{Severity: hcl.DiagWarning, Summary: "Floating version", Subject: r("a.hcl", 7, 2), Extra: &diag.Extra{Rule: "floating-version"}},
		{Severity: hcl.DiagWarning, Summary: "Redundant edge", Subject: r("a.hcl", 9, 1), Extra: &diag.Extra{Rule: "redundant-dependency", Notice: true}},
		{Severity: hcl.DiagError, Summary: "No platform", Detail: "Add a platform block."},
	})
}

func TestJUnit(t *testing.T) {
	var out bytes.Buffer
	if err := JUnit(&out, xmlDiags(), nil); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out.String())
	}
	if got.Tests != 4 || got.Failures != 4 || got.Errors != 0 {
		t.Errorf("totals tests=%d failures=%d errors=%d, want 4 4 0", got.Tests, got.Failures, got.Errors)
	}
	var names []string
	for _, s := range got.Suites {
		if s.Tests != len(s.Cases) || s.Failures != len(s.Cases) {
			t.Errorf("suite %s counts %d/%d for %d cases", s.Name, s.Tests, s.Failures, len(s.Cases))
		}
		for _, c := range s.Cases {
			names = append(names, s.Name+"|"+c.Name+"|"+c.Failure.Type+"|"+c.Failure.Message)
		}
	}
	want := []string{
		"a.hcl|floating-version|warning|a.hcl:7:2: Floating version",
		"a.hcl|redundant-dependency|notice|a.hcl:9:1: Redundant edge",
		"b.hcl|compiler|error|b.hcl:3:5: Unknown class",
		"(platform)|compiler|error|(platform): No platform",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("cases:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if got.Skipped != 0 {
		t.Errorf("%d skipped, want 0", got.Skipped)
	}
	// The detail comes back as written, except the characters XML 1.0
	// cannot carry, replaced.
	if text := got.Suites[1].Cases[0].Failure.Text; !strings.Contains(text, "Use <one> of \"a\" & ]]> b\uFFFD\uFFFD[31m.") {
		t.Errorf("detail not carried: %q", text)
	}
}

func TestCheckstyle(t *testing.T) {
	var out bytes.Buffer
	if err := Checkstyle(&out, xmlDiags()); err != nil {
		t.Fatal(err)
	}
	var got checkstyleDoc
	if err := xml.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out.String())
	}
	if got.Version != "4.3" {
		t.Errorf("version %q", got.Version)
	}
	var rows []string
	for _, f := range got.Files {
		for _, e := range f.Errors {
			rows = append(rows, strings.Join([]string{f.Name, strconv.Itoa(e.Line), strconv.Itoa(e.Column), e.Severity, e.Source, e.Message}, "|"))
		}
	}
	want := []string{
		"a.hcl|7|2|warning|platc.floating-version|Floating version",
		"a.hcl|9|1|info|platc.redundant-dependency|Redundant edge",
		"b.hcl|3|5|error|platc.compiler|Unknown class. Use <one> of \"a\" & ]]> b\uFFFD\uFFFD[31m.",
		"(platform)|0|0|error|platc.compiler|No platform. Add a platform block.",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// A clean run is a valid, empty document in both formats.
func TestXMLClean(t *testing.T) {
	for name, write := range map[string]func(*bytes.Buffer) error{
		"junit":      func(b *bytes.Buffer) error { return JUnit(b, nil, nil) },
		"checkstyle": func(b *bytes.Buffer) error { return Checkstyle(b, nil) },
	} {
		var out bytes.Buffer
		if err := write(&out); err != nil {
			t.Fatal(err)
		}
		var v struct {
			XMLName  xml.Name
			Children []struct{ XMLName xml.Name } `xml:",any"`
		}
		if err := xml.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out.String())
		}
		if len(v.Children) != 0 || !strings.HasPrefix(out.String(), xml.Header) {
			t.Errorf("%s: clean run:\n%s", name, out.String())
		}
	}
}

// Rules that did not run are JUnit's skipped testcases, with the reason.
func TestJUnitSkippedRules(t *testing.T) {
	var out bytes.Buffer
	skipped := &JSONSkipped{Reason: "The platform has errors, so 2 rules did not run.", Rules: []string{"floating-version", "missing-timeout"}}
	if err := JUnit(&out, xmlDiags()[:1], skipped); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out.String())
	}
	if got.Tests != 3 || got.Failures != 1 || got.Skipped != 2 {
		t.Errorf("totals tests=%d failures=%d skipped=%d, want 3 1 2\n%s", got.Tests, got.Failures, got.Skipped, out.String())
	}
	last := got.Suites[len(got.Suites)-1]
	if last.Skipped != 2 || len(last.Cases) != 2 || last.Cases[1].Name != "missing-timeout" || last.Cases[1].Skipped == nil ||
		last.Cases[1].Skipped.Message != skipped.Reason || last.Cases[1].Failure != nil {
		t.Errorf("skipped suite:\n%s", out.String())
	}
}
