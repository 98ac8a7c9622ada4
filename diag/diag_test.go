package diag

import (
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
