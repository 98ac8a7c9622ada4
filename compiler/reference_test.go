package compiler

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/health"
)

// docFunctions lists the functions a section of docs/language.md names
// in `name(` form.
func docFunctions(t *testing.T, from, to string) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, from), strings.Index(doc, to)
	if i < 0 || j < i {
		t.Fatalf("docs/language.md has no section between %q and %q", from, to)
	}
	var names []string
	for _, m := range regexp.MustCompile("`([a-z]+)\\(").FindAllStringSubmatch(doc[i:j], -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return names
}

// The reference lists exactly the functions expressions may call, and
// exactly those of the health-rule subset.
func TestReferenceFunctions(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		want     []string
	}{
		{"\n## Functions\n", "\n## Health-rule subset\n", keys(functions)},
		{"\n## Health-rule subset\n", "`docs/health.md` explains", keys(health.Functions)},
	} {
		if got := docFunctions(t, tc.from, tc.to); !slices.Equal(got, tc.want) {
			t.Errorf("docs/language.md, %s: documents %v, the language has %v", strings.TrimSpace(tc.from), got, tc.want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
