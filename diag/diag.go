package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
)

// Related is another place in the source that explains a diagnostic, such
// as one hop of a dependency cycle or the first declaration of a duplicate.
type Related struct {
	Range   hcl.Range
	Message string
}

// Extra is the value platc stores in hcl.Diagnostic.Extra. Renderers for
// JSON and SARIF turn Related into related locations; Rule names the lint
// rule that produced a finding (empty for compiler diagnostics).
type Extra struct {
	Related []Related
	Rule    string
	// Notice marks a lint notice, the level below a warning. HCL knows
	// only errors and warnings, so a notice travels as a DiagWarning with
	// Notice set; renderers print and count it as a notice.
	Notice bool
}

// IsNotice reports whether d is a lint notice rather than a warning.
func IsNotice(d *hcl.Diagnostic) bool {
	e := ExtraOf(d)
	return e != nil && e.Notice && d.Severity == hcl.DiagWarning
}

// ExtraOf returns the platc Extra of d, or nil.
func ExtraOf(d *hcl.Diagnostic) *Extra {
	if d == nil {
		return nil
	}
	if e, ok := d.Extra.(*Extra); ok {
		return e
	}
	return nil
}

// Error builds an error diagnostic.
func Error(subject hcl.Range, summary, detail string) *hcl.Diagnostic {
	s := subject
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: &s}
}

// Warning builds a warning diagnostic.
func Warning(subject hcl.Range, summary, detail string) *hcl.Diagnostic {
	s := subject
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: summary, Detail: detail, Subject: &s}
}

// Sort orders diagnostics by file, line, column, severity and text, and
// drops exact duplicates (the same problem found while compiling several
// environments is reported once).
func Sort(diags hcl.Diagnostics) hcl.Diagnostics {
	out := slices.Clone(diags)
	slices.SortStableFunc(out, compare)
	return slices.CompactFunc(out, func(a, b *hcl.Diagnostic) bool { return compare(a, b) == 0 })
}

func compare(a, b *hcl.Diagnostic) int {
	ar, br := rangeOf(a), rangeOf(b)
	return cmp.Or(
		cmp.Compare(ar.Filename, br.Filename),
		cmp.Compare(ar.Start.Line, br.Start.Line),
		cmp.Compare(ar.Start.Column, br.Start.Column),
		cmp.Compare(a.Severity, b.Severity),
		cmp.Compare(a.Summary, b.Summary),
		cmp.Compare(a.Detail, b.Detail),
	)
}

func rangeOf(d *hcl.Diagnostic) hcl.Range {
	if d.Subject != nil {
		return *d.Subject
	}
	return hcl.Range{}
}

// At formats the start of r as file:line:column, the form platc uses
// whenever a message points at another place in the source.
func At(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// Suggest returns the candidate closest to given, or "" when none is close
// enough to be a plausible typo. Candidates are tried in order, so callers
// pass them sorted to keep suggestions deterministic.
func Suggest(given string, candidates []string) string {
	// A prefix is what people type when they abbreviate: "prod" for
	// "production".
	if len(given) >= 3 {
		for _, c := range candidates {
			if strings.HasPrefix(c, given) {
				return c
			}
		}
	}
	best, bestDist := "", 0
	limit := 3
	if len(given) > 12 {
		limit = len(given) / 4
	}
	for _, c := range candidates {
		d := levenshtein.Distance(given, c, nil)
		if d < limit && (best == "" || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}
