package lint

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

func TestValidate(t *testing.T) {
	ok := func(p *Pass) error { return nil }
	good := &Rule{Name: "good-rule", Doc: "title\n\nbody", Severity: Warning, Run: ok}
	if err := Validate([]*Rule{good}); err != nil {
		t.Fatalf("valid rule rejected: %v", err)
	}
	bad := []*Rule{
		{Name: "Bad_Name", Doc: "title\n\nbody", Severity: Warning, Run: ok},
		{Name: "good-rule", Doc: "title\n\nbody", Severity: Warning, Run: ok},
		{Name: "no-doc", Severity: Warning, Run: ok},
		{Name: "long-title", Doc: strings.Repeat("x", 61) + "\n\nbody", Severity: Warning, Run: ok},
		{Name: "capital", Doc: "Title\n\nbody", Severity: Warning, Run: ok},
		{Name: "period", Doc: "title.\n\nbody", Severity: Warning, Run: ok},
		{Name: "no-body", Doc: "title", Severity: Warning, Run: ok},
		{Name: "no-severity", Doc: "title\n\nbody", Run: ok},
		{Name: "no-run", Doc: "title\n\nbody", Severity: Warning},
	}
	err := Validate(append([]*Rule{good}, bad...))
	if err == nil {
		t.Fatal("invalid rules accepted")
	}
	for _, want := range []string{
		`"Bad_Name" is not kebab-case`, `"good-rule" is registered twice`, `"no-doc" is undocumented`,
		`"long-title" has a title of 61`, `"capital" title should start lowercase`, `"period" title ends with a period`,
		`"no-body" doc has no body`, `"no-severity" has no valid severity`, `"no-run" has no Run func`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
}

func TestHCLSuppressions(t *testing.T) {
	src := `app "a" {
  x = "# platc:ignore not-a-comment -- inside a string"
  y = 1 # platc:ignore rule-one -- trailing
  # platc:ignore rule-two,rule-three -- above, across a comment line
  // another comment

  z = 2
  w = 3 // platc:ignore rule-four
  v = 4 /* platc:ignore rule-five -- block comment */
  # platc:ignore
}
`
	got := HCLSuppressions("p.hcl", []byte(src))
	type s struct {
		Rules     []string
		Reason    string
		Line      int
		Malformed string
		At        string
	}
	var out []s
	for _, x := range got {
		out = append(out, s{x.Rules, x.Reason, x.Line, x.Malformed, diag.At(x.Comment)})
	}
	want := []s{
		{[]string{"rule-one"}, "trailing", 3, "", "p.hcl:3:9"},
		{[]string{"rule-two", "rule-three"}, "above, across a comment line", 7, "", "p.hcl:4:3"},
		{[]string{"rule-four"}, "", 8, "gives no reason", "p.hcl:8:9"},
		{[]string{"rule-five"}, "block comment", 9, "", "p.hcl:9:9"},
		{nil, "", 11, "names no rule", "p.hcl:10:3"},
	}
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("suppressions (-want +got):\n%s", diff)
	}
	if r := got[1].RuleRanges[1]; r.Start.Line != 4 || r.Start.Column != 27 || r.End.Column != 37 {
		t.Errorf("range of rule-three = %s-%d, want p.hcl:4:27-37", diag.At(r), r.End.Column)
	}
}

func TestYAMLSuppressions(t *testing.T) {
	src := `metadata:
  name: x  # platc:ignore undeclared-hook -- trailing
  annotations:
    # platc:ignore a, b -- above

    k: v
  url: "http://host/#platc:ignore"
`
	got := YAMLSuppressions("m.yaml", []byte(src))
	if len(got) != 2 {
		t.Fatalf("got %d suppressions, want 2", len(got))
	}
	if got[0].Line != 2 || got[0].Reason != "trailing" || diag.At(got[0].Comment) != "m.yaml:2:12" {
		t.Errorf("trailing: %+v", got[0])
	}
	if got[1].Line != 6 || !cmp.Equal(got[1].Rules, []string{"a", "b"}) {
		t.Errorf("above: line %d rules %v", got[1].Line, got[1].Rules)
	}
}

// compile builds a Module and Programs from source for runner tests.
func compile(t *testing.T, src string) (*lang.Module, []*ir.Program) {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	progs, diags := compiler.CompileAll(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return m, progs
}

const twoApps = `platform "acme" {
  git { repo_url = "https://git.example.com/p.git" }
}
app "a" {}
app "b" {} # platc:ignore every-app -- b is known
`

// everyApp reports each app once per environment, so the runner must
// de-duplicate.
var everyApp = &Rule{
	Name: "every-app", Doc: "reports every app\n\nfor tests", Severity: Notice, Default: true,
	Run: func(p *Pass) error {
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				p.Report(Issue{Message: "app " + a.Name, Detail: "for tests", Subject: a.NameRange})
			}
		}
		return nil
	},
}

func TestRunSuppressesAndDeduplicates(t *testing.T) {
	m, progs := compile(t, twoApps+"environment \"x\" {}\nenvironment \"y\" {}\n")
	if len(progs) != 2 {
		t.Fatalf("want 2 programs, got %d", len(progs))
	}
	diags, err := Run(Config{Module: m, Programs: progs, Rules: []*Rule{InvalidSuppression, everyApp}})
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 1 || diags[0].Summary != "app a" {
		t.Fatalf("want only the finding on app a, got %v", diags)
	}
	d := diags[0]
	e := diag.ExtraOf(d)
	if d.Severity != hcl.DiagWarning || e == nil || e.Rule != "every-app" || !e.Notice {
		t.Errorf("notice not carried as a warning with Extra{Rule, Notice}: %+v %+v", d, e)
	}
	if !strings.Contains(d.Detail, "# platc:ignore every-app -- <reason>") {
		t.Errorf("detail lacks the suppression hint: %q", d.Detail)
	}
}

func TestRunReportsUnusedSuppression(t *testing.T) {
	m, progs := compile(t, twoApps)
	quiet := &Rule{Name: "every-app", Doc: "x\n\ny", Severity: Warning, Run: func(*Pass) error { return nil }}
	diags, err := Run(Config{Module: m, Programs: progs, Rules: []*Rule{quiet, InvalidSuppression}})
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 1 || diags[0].Summary != `suppression of "every-app" matched no finding` {
		t.Fatalf("got %v", diags)
	}
	// A suppression cannot silence invalid-suppression itself.
	if strings.Contains(diags[0].Detail, "platc:ignore invalid-suppression") {
		t.Errorf("invalid-suppression offers to suppress itself: %q", diags[0].Detail)
	}
}

func TestRunSurvivesBrokenRules(t *testing.T) {
	m, progs := compile(t, twoApps)
	failing := &Rule{Name: "failing", Doc: "x\n\ny", Severity: Error, Run: func(*Pass) error { return errors.New("boom") }}
	panicking := &Rule{Name: "panicking", Doc: "x\n\ny", Severity: Error, Run: func(*Pass) error { panic("bad index") }}
	diags, err := Run(Config{Module: m, Programs: progs, Rules: []*Rule{failing, panicking, everyApp}})
	if err == nil || !strings.Contains(err.Error(), "rule failing: boom") || !strings.Contains(err.Error(), "rule panicking panicked: bad index") {
		t.Errorf("error = %v", err)
	}
	if len(diags) != 1 {
		t.Errorf("the working rule's findings were lost: %v", diags)
	}
}

func TestScanRulesNeedManifests(t *testing.T) {
	m, progs := compile(t, twoApps)
	ran := false
	scan := &Rule{Name: "scan-rule", Doc: "x\n\ny", Severity: Error, Scan: true, Run: func(*Pass) error { ran = true; return nil }}
	if _, err := Run(Config{Module: m, Programs: progs, Rules: []*Rule{scan}}); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Error("a scan rule ran without --scan")
	}
}

func TestParseSeverity(t *testing.T) {
	for _, s := range []Severity{Error, Warning, Notice} {
		if got, ok := ParseSeverity(s.String()); !ok || got != s {
			t.Errorf("ParseSeverity(%q) = %v, %v", s, got, ok)
		}
	}
	if _, ok := ParseSeverity("fatal"); ok {
		t.Error("ParseSeverity accepted fatal")
	}
}
