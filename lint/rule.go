package lint

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"unicode"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/manifest"
)

// Severity is how serious a finding is. It decides the exit code through
// --fail-on: errors and warnings fail by default, notices never do unless
// asked to.
type Severity int

// Severities, most serious first.
const (
	Error Severity = iota + 1
	Warning
	Notice
)

// String returns the severity as users write it in --fail-on.
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Notice:
		return "notice"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ParseSeverity reads a severity as written in --fail-on.
func ParseSeverity(s string) (Severity, bool) {
	for _, v := range []Severity{Error, Warning, Notice} {
		if v.String() == s {
			return v, true
		}
	}
	return 0, false
}

// SeverityOf is a diagnostic's lint severity; the compiler's warnings
// count as warnings, its errors as errors.
func SeverityOf(d *hcl.Diagnostic) Severity {
	switch {
	case d.Severity == hcl.DiagError:
		return Error
	case diag.IsNotice(d):
		return Notice
	}
	return Warning
}

// Fails reports whether any of diags is at or above failOn (--fail-on),
// which makes platc lint exit 1.
func Fails(diags hcl.Diagnostics, failOn Severity) bool {
	for _, d := range diags {
		if SeverityOf(d) <= failOn {
			return true
		}
	}
	return false
}

// A Rule is one lint check. Declare it once, as a package-level value.
type Rule struct {
	// Name is kebab-case and stable: it is what --enable, --disable,
	// suppression comments and docs/rules/<Name>.md use.
	Name string
	// Doc is "title, lowercase, no period\n\nwhy it matters and how to
	// fix it". platc explain prints it.
	Doc      string
	Severity Severity
	// Default says whether the rule runs without --enable.
	Default bool
	// Scan marks a rule that reads the manifests of --scan DIR. It runs
	// only when a scan directory is given.
	Scan bool
	// Syntax marks a rule that reads only Pass.Module and Pass.Manifests,
	// never a compiled program. Such rules still run when the platform
	// does not compile, so a compile error does not hide their findings.
	Syntax bool
	// Run reports findings through the Pass. A returned error means the
	// rule broke, not that it found something.
	Run func(*Pass) error
}

// Title is the first line of Doc.
func (r *Rule) Title() string {
	title, _, _ := strings.Cut(r.Doc, "\n")
	return title
}

// Body is Doc without its title.
func (r *Rule) Body() string {
	_, body, _ := strings.Cut(r.Doc, "\n")
	return strings.TrimSpace(body)
}

// StopsBuild says whether the rule's findings stop platc build: a rule on
// by default that reports errors and needs only the platform (build has
// no --scan). What lint calls an error is wrong in the output itself, so
// build refuses to write it; warnings and notices never stop a build.
// Suppression comments apply to build as to lint.
func (r *Rule) StopsBuild() bool { return r.Default && !r.Scan && r.Severity == Error }

// DocPath is where the rule's documentation page lives in the repository.
func (r *Rule) DocPath() string { return "docs/rules/" + r.Name + ".md" }

// A Pass is everything a rule may look at, plus the one way to report.
type Pass struct {
	Rule *Rule
	// Module is the syntax: every block and attribute with its range.
	// When the platform did not compile it may be partial: blocks that
	// failed to decode are missing.
	Module *lang.Module
	// Decls finds the block in Module behind a name: an app, stack,
	// class or health rule of the IR.
	Decls *Decls
	// Programs holds the platform compiled for each environment, in
	// declaration order; empty when the platform did not compile, and
	// then only Syntax rules run. The graph, names and classes are the same in all
	// of them; evaluated values (versions, revisions, values) may differ,
	// so rules that read values look at every program.
	Programs []*ir.Program
	// Program is Programs[0], for rules that only read the structure;
	// nil when Programs is empty.
	Program *ir.Program
	// Manifests holds the objects found under --scan DIR; nil without
	// --scan.
	Manifests *manifest.Set
	// Suppressions are the platc:ignore comments found, with what each
	// matched. Only the invalid-suppression rule, which runs after every
	// other rule, sees them filled in.
	Suppressions []*Suppression

	known  []string // every registered rule name, for suggestions
	files  fs.FS    // Config.Files, read by ReadFile
	report func(Issue)
}

// Report records a finding of the pass's rule.
func (p *Pass) Report(i Issue) {
	i.Rule = p.Rule
	p.report(i)
}

// Reportf records a finding with a formatted message and no detail.
func (p *Pass) Reportf(subject hcl.Range, format string, args ...any) {
	p.Report(Issue{Message: fmt.Sprintf(format, args...), Subject: subject})
}

// An Issue is one finding; Related points at the other places that
// explain it.
type Issue struct {
	Rule *Rule
	// Message is lowercase with no trailing period, names quoted:
	// chart version "^1.2.0" is a range, not a pinned version.
	Message string
	// Detail says why it matters here and how to fix it, in full
	// sentences.
	Detail string
	// Subject is tight: the label, value or reference at fault, not the
	// whole block.
	Subject hcl.Range
	Related []diag.Related
}

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// maxTitle keeps titles short enough for a table row and a SARIF
// shortDescription.
const maxTitle = 60

// Validate checks a set of rules the way go/analysis.Validate checks
// analyzers: names kebab-case and unique, a title of at most 60
// characters that is lowercase and has no trailing period, a body, a
// severity and a Run func. All problems are returned together.
func Validate(rules []*Rule) error {
	var errs []string
	seen := map[string]bool{}
	for i, r := range rules {
		if r == nil {
			errs = append(errs, fmt.Sprintf("rule %d is nil", i))
			continue
		}
		if !kebab.MatchString(r.Name) {
			errs = append(errs, fmt.Sprintf("rule name %q is not kebab-case", r.Name))
		}
		if seen[r.Name] {
			errs = append(errs, fmt.Sprintf("rule %q is registered twice", r.Name))
		}
		seen[r.Name] = true
		title := r.Title()
		switch {
		case title == "":
			errs = append(errs, fmt.Sprintf("rule %q is undocumented", r.Name))
		case len(title) > maxTitle:
			errs = append(errs, fmt.Sprintf("rule %q has a title of %d characters; keep it to %d", r.Name, len(title), maxTitle))
		case strings.HasSuffix(title, "."):
			errs = append(errs, fmt.Sprintf("rule %q title ends with a period", r.Name))
		case unicode.IsUpper([]rune(title)[0]):
			errs = append(errs, fmt.Sprintf("rule %q title should start lowercase", r.Name))
		}
		if r.Body() == "" {
			errs = append(errs, fmt.Sprintf("rule %q doc has no body saying why it matters and how to fix it", r.Name))
		}
		if r.Severity < Error || r.Severity > Notice {
			errs = append(errs, fmt.Sprintf("rule %q has no valid severity", r.Name))
		}
		if r.Run == nil {
			errs = append(errs, fmt.Sprintf("rule %q has no Run func", r.Name))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid rules:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}
