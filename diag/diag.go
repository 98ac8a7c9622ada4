package diag

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

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
	return closest(given, candidates)
}

// closest is the candidate at the smallest edit distance below the typo
// limit, the first one on a tie. Each distance is computed only as far as
// it can still win (a band of the table around its diagonal), and
// candidates whose length alone rules them out are skipped, so a long
// list costs little per candidate.
func closest(given string, candidates []string) string {
	limit := 3
	if len(given) > 12 {
		limit = len(given) / 4
	}
	a := []rune(given)
	var b []rune
	var rows [2][]int
	best, bestDist := "", limit
	for _, c := range candidates {
		if d := utf8.RuneCountInString(c) - len(a); d >= bestDist || -d >= bestDist {
			continue
		}
		b = b[:0]
		for _, r := range c {
			b = append(b, r)
		}
		if d := distanceAtMost(a, b, bestDist-1, &rows); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distanceAtMost is the Levenshtein distance between a and b when it is
// at most k, and k+1 otherwise. It fills only the cells within k of the
// diagonal, in two rows kept in rows between calls. (agext/levenshtein's
// MaxCost cannot serve here: past the maximum it may return a value
// below it.)
func distanceAtMost(a, b []rune, k int, rows *[2][]int) int {
	inf := k + 1
	if len(a)-len(b) > k || len(b)-len(a) > k {
		return inf
	}
	for i := range rows {
		if cap(rows[i]) < len(b)+2 {
			rows[i] = make([]int, len(b)+2)
		}
		rows[i] = rows[i][:len(b)+2]
	}
	prev, cur := rows[0], rows[1]
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		rowMin := inf
		if lo == 1 {
			cur[0] = min(i, inf)
			rowMin = cur[0]
		} else {
			cur[lo-1] = inf
		}
		for j := lo; j <= hi; j++ {
			v := prev[j-1]
			if a[i-1] != b[j-1] {
				v++
			}
			v = min(v, prev[j]+1, cur[j-1]+1, inf)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		cur[hi+1] = inf
		if rowMin > k {
			return inf
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], inf)
}

// A Suggester makes "did you mean" suggestions from one list of names,
// for many unknown names: with 20,000 unknown references to 20,000 apps,
// trying every name for every reference never finished. It sorts the
// names once, finds a prefix by binary search, and suggests for at most
// budget names; after that it returns "".
type Suggester struct {
	names  []string
	budget int
}

// NewSuggester returns a Suggester over names (copied and sorted) that
// answers budget times.
func NewSuggester(names []string, budget int) *Suggester {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	return &Suggester{names: sorted, budget: budget}
}

// Suggest is the package's Suggest over the Suggester's names, while the
// budget lasts.
func (s *Suggester) Suggest(given string) string {
	if s == nil || s.budget <= 0 {
		return ""
	}
	s.budget--
	if len(given) >= 3 {
		if i, _ := slices.BinarySearch(s.names, given); i < len(s.names) && strings.HasPrefix(s.names[i], given) {
			return s.names[i]
		}
	}
	return closest(given, s.names)
}
