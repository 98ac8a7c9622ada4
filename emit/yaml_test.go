package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// referenceYAML is how platc rendered YAML before its own writer: through
// JSON and sigs.k8s.io/yaml (go-yaml v2). The writer must give the same
// bytes.
func referenceYAML(t testing.TB, tree any) string {
	t.Helper()
	j, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		t.Fatalf("reference: %v\n%s", err, j)
	}
	return string(y)
}

func ownYAML(tree any) string { return string(appendYAMLDocument(nil, tree)) }

// Pieces the random strings are made of: YAML indicators in every
// position, words for line folding, numbers, dates, booleans and the
// unicode libyaml treats specially (no-break space, byte order mark,
// 4-byte characters, line and paragraph separators, tabs, CR).
var pieces = []string{
	"a", "app", "Zeta", "x1", " ", "  ", "\n", "\n\n", "\r\n", "\t", ":", ": ", " #", "#", "-", "- ", "--", "---", "...", "?", "? ",
	",", "[", "]", "{", "}", "{{workflow.parameters.x}}", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`", "\\",
	"0", "1", "007", "0x1F", "0b101", "-0b1", "1e3", "1_000", "1.5", ".5", "-", "+", "1:20", "190:20:30.15", "2024-01-02", "2001-12-14t21:59:43.10-05:00",
	"true", "yes", "No", "on", "OFF", "null", "~", "<<", ".inf", "-.Inf", ".NaN",
	"é", "中文", "😀", "\u00a0", "\ufeff", "\u2028", "\u2029", "\u00ff", "\u0100", "\ufffd",
	"https://charts.example.com/x?y=z", "a long sentence that goes on", "word",
}

func randomString(r *rand.Rand) string {
	var b strings.Builder
	switch r.IntN(10) {
	case 0:
		return ""
	case 1: // a long line of words, to fold past column 80
		for b.Len() < 60+r.IntN(200) {
			b.WriteString([]string{"lorem", "ipsum", "dolor", "sit", "amet"}[r.IntN(5)])
			b.WriteString([]string{" ", " ", " ", "  ", "\n", "-"}[r.IntN(6)])
		}
		return b.String()
	}
	for n := 1 + r.IntN(6); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

var numbers = []float64{0, 1, -1, 42, 0.5, -2.25, 1e6, 1e20, 1e21, 1.5e300, 1e-6, 1e-7, 123456789012345, math.MaxInt64, math.MaxUint64, 4.9e-324, math.Copysign(0, -1)}

func randomTree(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth > 4 {
		k = 5 + r.IntN(5)
	}
	switch {
	case k < 3:
		m := map[string]any{}
		for n := r.IntN(6); n > 0; n-- {
			key := randomString(r)
			if r.IntN(4) > 0 {
				key = fmt.Sprintf("key-%d", r.IntN(200)) // natural order: key-9 < key-10
			}
			if r.IntN(30) == 0 {
				key = strings.Repeat("k", 120+r.IntN(20)) // past the 128-byte simple key
			}
			m[key] = randomTree(r, depth+1)
		}
		return m
	case k < 5:
		s := []any{}
		for n := r.IntN(5); n > 0; n-- {
			s = append(s, randomTree(r, depth+1))
		}
		return s
	case k < 8:
		return randomString(r)
	case k == 8:
		return numbers[r.IntN(len(numbers))] * []float64{1, -1, 3}[r.IntN(3)]
	}
	return []any{true, false, nil}[r.IntN(3)]
}

// The writer gives go-yaml's bytes for thousands of generated trees.
func TestYAMLMatchesGoYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5000 {
		tree := randomTree(r, 0)
		if want, got := referenceYAML(t, tree), ownYAML(tree); got != want {
			wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
			for j := range min(len(wl), len(gl)) {
				if wl[j] != gl[j] {
					t.Errorf("first difference at line %d:\n go-yaml: %q\n platc:   %q", j+1, wl[j], gl[j])
					break
				}
			}
			t.Fatalf("tree %d differs from go-yaml:\n--- go-yaml\n%s\n--- platc\n%s", i, want, got)
		}
	}
}

// Every string, as a value, a key and a list item, at several depths (a
// deeper scalar folds at a different place).
func FuzzYAML(f *testing.F) {
	for _, s := range pieces {
		f.Add(s, 0)
	}
	f.Add("lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore", 3)
	f.Add("#!/bin/bash\nset -eu\n  indented\n\ttab\n", 1)
	f.Fuzz(func(t *testing.T, s string, depth int) {
		if !yamlSafe(s) {
			t.Skip()
		}
		var tree any = map[string]any{s: s, "list": []any{s, map[string]any{"k": s}}, "n": []any{}}
		for range depth % 6 {
			tree = map[string]any{"nested": tree, "z": []any{tree}}
		}
		if want, got := referenceYAML(t, tree), ownYAML(tree); got != want {
			t.Fatalf("differs from go-yaml for %q:\n--- go-yaml\n%s\n--- platc\n%s", s, want, got)
		}
	})
}

// yamlSafe excludes strings the old JSON → go-yaml path could not carry:
// invalid UTF-8 (encoding/json has already replaced it by then), DEL and
// the C1 controls, U+FFFE and U+FFFF (go-yaml's reader refuses them raw
// in JSON text) and NEL (which it reads as a line break and folds). The
// writer escapes all of them correctly.
func yamlSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r >= 0x7F && r <= 0x9F || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

func TestYAMLTreesDropsEmptyFields(t *testing.T) {
	tree := map[string]any{
		"metadata": map[string]any{"creationTimestamp": nil, "name": "x"},
		"status":   map[string]any{},
	}
	got := YAMLTrees(tree)
	if want := Header + "metadata:\n  name: x\n"; string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if !bytes.HasPrefix(YAMLTrees(), []byte(Header)) {
		t.Error("an empty file lacks the header")
	}
}
