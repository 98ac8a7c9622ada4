package diag

import (
	"github.com/agext/levenshtein"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

func TestSortOrdersAndDeduplicates(t *testing.T) {
	at := func(file string, line int) hcl.Range {
		return hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: 1}}
	}
	diags := hcl.Diagnostics{
		Error(at("b.hcl", 1), "B", ""),
		Error(at("a.hcl", 9), "A9", ""),
		Error(at("a.hcl", 2), "A2", ""),
		Error(at("a.hcl", 9), "A9", ""), // found again in another environment
	}
	got := Sort(diags)
	var order []string
	for _, d := range got {
		order = append(order, d.Summary)
	}
	if want := []string{"A2", "A9", "B"}; len(order) != 3 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Errorf("order = %v, want %v", order, want)
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"ceph-cluster", "ceph-operator", "production", "staging"}
	for given, want := range map[string]string{
		"ceph-clustr":  "ceph-cluster",
		"ceph-operatr": "ceph-operator",
		"prod":         "production",
		"stagin":       "staging",
		"vault":        "",
		"pr":           "",
	} {
		if got := Suggest(given, cands); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", given, got, want)
		}
	}
}

// TestSuggester: a Suggester answers as Suggest does over the same
// names, in any order, until its budget is spent.
func TestSuggester(t *testing.T) {
	names := []string{"vault", "postgres-clusters", "production", "ceph-operator", "staging"}
	s := NewSuggester(names, 4)
	sorted := slices.Sorted(slices.Values(names))
	for _, given := range []string{"vualt", "prod", "postgres-cluster", "ceph-operater"} {
		if got, want := s.Suggest(given), Suggest(given, sorted); got != want || got == "" {
			t.Errorf("Suggest(%q) = %q, Suggest over sorted names = %q", given, got, want)
		}
	}
	if got := s.Suggest("vualt"); got != "" {
		t.Errorf("after the budget: %q, want none", got)
	}
}

// TestSuggestFarNames: names far from the given one are never suggested,
// however the distance computation is cut short.
func TestSuggestFarNames(t *testing.T) {
	for _, c := range [][2]string{{"format", "lower"}, {"object", "platform"}, {"abcdefghijklmnopq", "qponmlkjihgfedcba"}} {
		if got := Suggest(c[0], []string{c[1]}); got != "" {
			t.Errorf("Suggest(%q, [%q]) = %q, want none", c[0], c[1], got)
		}
	}
}

// TestDistanceAtMost checks the banded distance against the full one on
// all pairs of a set of words, for every bound.
func TestDistanceAtMost(t *testing.T) {
	words := []string{"", "a", "vault", "staging", "format", "lower", "object", "platform", "kitten", "sitting", "ceph-operator", "ceph-operater", "日本語", "日本"}
	var rows [2][]int
	for _, x := range words {
		for _, y := range words {
			full := levenshtein.Distance(x, y, nil)
			for k := 0; k <= 8; k++ {
				want := min(full, k+1)
				if got := distanceAtMost([]rune(x), []rune(y), k, &rows); got != want {
					t.Errorf("distanceAtMost(%q, %q, %d) = %d, want %d", x, y, k, got, want)
				}
			}
		}
	}
}
