package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// The two XML formats CI systems read when they do not read SARIF: JUnit
// (Jenkins, GitLab, Azure Pipelines, CircleCI test reports) and
// Checkstyle (Jenkins' warnings plugin, reviewdog, Bitbucket). Both are
// built from ToJSON's diagnostics, so the rule ("compiler" for the
// compiler's own), severity and location are decided once. encoding/xml
// escapes every value and replaces characters XML 1.0 cannot hold, so
// hostile text in a platform cannot break the document.

// NoFile names, in both formats, the group of diagnostics that have no
// source range (a platform with no files, a missing directory).
const NoFile = "(platform)"

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure"`
	Skipped   *junitSkipped `xml:"skipped"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// JUnit writes diags as a JUnit XML report, the form tflint and
// golangci-lint use: one testsuite per file, one failing testcase per
// finding, named after its rule, whose failure type is the severity
// (error, warning, notice) and whose text is the location, summary and
// detail. A clean run is an empty <testsuites> with tests="0": platc
// invents no passing test cases. Whether the run failed is the exit code
// (--fail-on), as in every format. Rules that did not run (skipped.Rules,
// because the platform does not compile) are skipped testcases in a
// suite of their own, with the reason, as JUnit means "skipped".
func JUnit(w io.Writer, diags hcl.Diagnostics, skipped *JSONSkipped) error {
	doc := junitSuites{Name: "platc lint"}
	for _, g := range groupByFile(diags) {
		s := junitSuite{Name: g.file}
		for _, d := range g.diags {
			loc := g.file
			if d.Range != nil {
				loc = fmt.Sprintf("%s:%d:%d", d.Range.Filename, d.Range.Start.Line, d.Range.Start.Column)
			}
			text := loc + ": " + d.Summary
			if d.Detail != "" {
				text += "\n\n" + d.Detail
			}
			s.Cases = append(s.Cases, junitCase{
				Name:      d.Rule,
				ClassName: g.file,
				Failure:   &junitFailure{Message: loc + ": " + d.Summary, Type: d.Severity, Text: text},
			})
		}
		s.Tests, s.Failures = len(s.Cases), len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Suites = append(doc.Suites, s)
	}
	if skipped != nil && len(skipped.Rules) > 0 {
		s := junitSuite{Name: "skipped rules", Tests: len(skipped.Rules), Skipped: len(skipped.Rules)}
		for _, r := range skipped.Rules {
			s.Cases = append(s.Cases, junitCase{Name: r, ClassName: "platc lint", Skipped: &junitSkipped{Message: skipped.Reason}})
		}
		doc.Tests += s.Tests
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, s)
	}
	return writeXML(w, doc)
}

type checkstyleDoc struct {
	XMLName xml.Name         `xml:"checkstyle"`
	Version string           `xml:"version,attr"`
	Files   []checkstyleFile `xml:"file"`
}

type checkstyleFile struct {
	Name   string            `xml:"name,attr"`
	Errors []checkstyleError `xml:"error"`
}

type checkstyleError struct {
	Line     int    `xml:"line,attr"`
	Column   int    `xml:"column,attr,omitempty"`
	Severity string `xml:"severity,attr"`
	Message  string `xml:"message,attr"`
	Source   string `xml:"source,attr"`
}

// Checkstyle writes diags as a Checkstyle XML report (version 4.3, the
// form tflint and golangci-lint write): one <file> per file, one <error>
// per finding with its line and column, severity error, warning or info
// (a notice; Checkstyle has no other name for it), the summary and
// detail as the message and "platc.RULE" as the source. A diagnostic
// without a range has line 0 under NoFile. A clean run is an empty
// <checkstyle>.
func Checkstyle(w io.Writer, diags hcl.Diagnostics) error {
	doc := checkstyleDoc{Version: "4.3"}
	for _, g := range groupByFile(diags) {
		f := checkstyleFile{Name: g.file}
		for _, d := range g.diags {
			e := checkstyleError{Severity: d.Severity, Message: d.Summary, Source: "platc." + d.Rule}
			if e.Severity == "notice" {
				e.Severity = "info"
			}
			if d.Detail != "" {
				e.Message += ". " + d.Detail
			}
			if d.Range != nil {
				e.Line, e.Column = d.Range.Start.Line, d.Range.Start.Column
			}
			f.Errors = append(f.Errors, e)
		}
		doc.Files = append(doc.Files, f)
	}
	return writeXML(w, doc)
}

type fileGroup struct {
	file  string
	diags []JSONDiagnostic
}

// groupByFile groups diags by file in the order the files first appear
// (diags come sorted by position, so by file name), NoFile last.
func groupByFile(diags hcl.Diagnostics) []fileGroup {
	var groups []fileGroup
	for _, d := range ToJSON(diags).Diagnostics {
		file := NoFile
		if d.Range != nil && d.Range.Filename != "" {
			file = d.Range.Filename
		}
		i := slices.IndexFunc(groups, func(g fileGroup) bool { return g.file == file })
		if i < 0 {
			groups = append(groups, fileGroup{file: file})
			i = len(groups) - 1
		}
		groups[i].diags = append(groups[i].diags, d)
	}
	// Stable, so the order within a file stays the diagnostics' own.
	slices.SortStableFunc(groups, func(a, b fileGroup) int {
		if (a.file == NoFile) != (b.file == NoFile) {
			if a.file == NoFile {
				return 1
			}
			return -1
		}
		return strings.Compare(a.file, b.file)
	})
	return groups
}

func writeXML(w io.Writer, doc any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
