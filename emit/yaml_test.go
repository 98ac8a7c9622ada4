package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	yaml3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"
)

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
				key = fmt.Sprintf("key-%d", r.IntN(200)) // byte order: key-10 < key-9
			}
			if r.IntN(100) == 0 {
				key = strings.Repeat("k", 990+r.IntN(40)) // past YAML's 1024-character implicit key
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

// parsed reads one YAML document back as JSON with go-yaml v2 (what
// sigs.k8s.io/yaml, kubectl and Argo use) and with go-yaml v3, and fails
// unless both agree with want.
func roundTrip(t testing.TB, tree any, doc string) {
	t.Helper()
	want, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("go-yaml v2 cannot read the output: %v\n%s", err, doc)
	}
	if !jsonEqual(t, v2, want) {
		t.Fatalf("go-yaml v2 reads a different tree:\n--- yaml\n%s--- read\n%s\n--- want\n%s", doc, v2, want)
	}
	var n any
	if err := yaml3.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatalf("go-yaml v3 cannot read the output: %v\n%s", err, doc)
	}
	v3, err := json.Marshal(n)
	if err != nil {
		t.Fatalf("go-yaml v3 read something JSON cannot hold: %v\n%s", err, doc)
	}
	if !jsonEqual(t, v3, want) {
		t.Fatalf("go-yaml v3 reads a different tree:\n--- yaml\n%s--- read\n%s\n--- want\n%s", doc, v3, want)
	}
}

// jsonEqual compares two JSON texts as values (numbers as float64, so 1
// and 1.0 are equal; go-yaml returns integers, encoding/json floats).
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// Thousands of generated trees come back unchanged through both parsers.
func TestYAMLRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		tree := randomTree(r, 0)
		roundTrip(t, tree, ownYAML(tree))
	}
}

// PyYAML, which Ansible uses, reads YAML 1.1: more plain words are
// booleans there, and "1e+21" is a string. It must read the same trees.
func TestYAMLRoundTripPyYAML(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(py, "-c", "import yaml").Run()
	}
	if err != nil {
		if os.Getenv("PLATC_REQUIRE_ANSIBLE") == "1" {
			t.Fatalf("PLATC_REQUIRE_ANSIBLE=1 but python3 with PyYAML is missing: %v", err)
		}
		t.Skipf("python3 with PyYAML is missing: %v", err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	var docs, wants []string
	for range 2000 {
		tree := randomTree(r, 0)
		j, err := json.Marshal(tree)
		if err != nil {
			t.Fatal(err)
		}
		docs, wants = append(docs, ownYAML(tree)), append(wants, string(j))
	}
	in, err := json.Marshal(docs)
	if err != nil {
		t.Fatal(err)
	}
	// One process for all documents; each comes back as JSON on a line.
	cmd := exec.Command(py, "-c", `import json, sys, yaml
for d in json.load(sys.stdin):
    print(json.dumps(yaml.safe_load(d), allow_nan=False))`)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("PyYAML: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(docs) {
		t.Fatalf("PyYAML returned %d documents, want %d", len(got), len(docs))
	}
	for i := range docs {
		if !jsonEqual(t, []byte(got[i]), []byte(wants[i])) {
			t.Fatalf("PyYAML reads a different tree:\n--- yaml\n%s--- read\n%s\n--- want\n%s", docs[i], got[i], wants[i])
		}
	}
}

// Every string, as a value, a key and a list item, at several depths.
func FuzzYAML(f *testing.F) {
	for _, s := range pieces {
		f.Add(s, 0)
	}
	f.Add("#!/bin/bash\nset -eu\n  indented\n\ttab\n", 1)
	f.Add("a\n\n\n", 2)
	f.Fuzz(func(t *testing.T, s string, depth int) {
		// encoding/json replaces invalid UTF-8 before the writer sees it.
		s = strings.ToValidUTF8(s, "\uFFFD")
		var tree any = map[string]any{s: s, "list": []any{s, map[string]any{"k": s}, []any{s}}, "n": []any{}}
		for range depth % 6 {
			tree = map[string]any{"nested": tree, "z": []any{tree}}
		}
		roundTrip(t, tree, ownYAML(tree))
	})
}

// What a reviewer reads in a generated file: names bare, anything a YAML
// reader could take for another type quoted, scripts as literal blocks.
func TestYAMLStyle(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"ceph-operator", "ceph-operator"},
		{"quay.io/argoproj/argocd:v3.4.4", "quay.io/argoproj/argocd:v3.4.4"},
		{"https://kubernetes.default.svc", "https://kubernetes.default.svc"},
		{"key: value", `"key: value"`},
		{"ends:", `"ends:"`},
		{"1:20", `"1:20"`},
		{"12:30:00", `"12:30:00"`},
		{"10m", "10m"},
		{"v1.2.3", "v1.2.3"},
		{"1.2.3", `"1.2.3"`},
		{"2024-01-02", `"2024-01-02"`},
		{"0x1F", `"0x1F"`},
		{"1e3", `"1e3"`},
		{"yes", `"yes"`},
		{"Off", `"Off"`},
		{"null", `"null"`},
		{"", `""`},
		{"{{inputs.parameters.app}}", `"{{inputs.parameters.app}}"`},
		{"a sentence with spaces", "a sentence with spaces"},
		{" padded", `" padded"`},
		{"tab\there", `"tab\there"`},
		{`["cdn","shop"]`, `'["cdn","shop"]'`},
		{`it's "x"`, `'it''s "x"'`},
		{`C:\dir`, `'C:\dir'`},
		{"\"quoted\"\t", `"\"quoted\"\t"`},
		{"sep\u2028", `"sep\u2028"`},
		{float64(30), "30"},
		{1e6, "1000000"},
		{0.25, "0.25"},
		{1e21, "1.0e+21"},
		{true, "true"},
		{nil, "null"},
		{"set -eu\necho \"$APP\"\n", "|\n    set -eu\n    echo \"$APP\""},
		{"no newline\nat end", "|-\n    no newline\n    at end"},
		{"two\n\n", "|+\n    two\n"},
		{" leading\nblank", `" leading\nblank"`},
		{"blank line\n  \nhere", `"blank line\n  \nhere"`},
	} {
		tree := map[string]any{"v": []any{map[string]any{"k": tc.in}}}
		want := "v:\n- k: " + tc.want + "\n"
		if got := ownYAML(tree); got != want {
			t.Errorf("%q:\ngot:\n%s\nwant:\n%s", tc.in, got, want)
		}
		roundTrip(t, tree, want)
	}
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

// Kubernetes' conventional order: what an object is before its body, a
// named item's name first, the rest bytewise.
func TestYAMLKeyOrder(t *testing.T) {
	tree := map[string]any{
		"status":     map[string]any{"phase": "x"},
		"spec":       map[string]any{"templates": []any{map[string]any{"dag": map[string]any{"tasks": []any{map[string]any{"template": "t", "arguments": map[string]any{}, "name": "a"}}}, "metadata": map[string]any{"labels": map[string]any{}}, "name": "apps"}}},
		"data":       map[string]any{"b": "1", "a": "2"},
		"metadata":   map[string]any{"labels": map[string]any{}, "namespace": "argo", "annotations": map[string]any{}, "name": "w"},
		"kind":       "Workflow",
		"apiVersion": "argoproj.io/v1alpha1",
		"roleRef":    map[string]any{"name": "r", "kind": "ClusterRole", "apiGroup": "rbac.authorization.k8s.io"},
		"ignore":     []any{map[string]any{"jsonPointers": []any{"/x"}, "kind": "Deployment", "group": "apps"}},
	}
	want := `apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  name: w
  namespace: argo
  annotations: {}
  labels: {}
spec:
  templates:
  - name: apps
    metadata:
      labels: {}
    dag:
      tasks:
      - name: a
        arguments: {}
        template: t
data:
  a: "2"
  b: "1"
ignore:
- group: apps
  kind: Deployment
  jsonPointers:
  - /x
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: r
status:
  phase: x
`
	if got := ownYAML(tree); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	roundTrip(t, tree, want)
	// A total order: keys that differ never compare equal, in either
	// direction, so no map iteration order shows through.
	keys := []string{"apiVersion", "apiGroup", "group", "kind", "name", "namespace", "metadata", "spec", "status", "a", "Name", "names", "", "z"}
	for _, a := range keys {
		for _, b := range keys {
			if c, d := CompareKeys(a, b), CompareKeys(b, a); (c == 0) != (a == b) || c != -d && !(c < 0 && d > 0 || c > 0 && d < 0) {
				t.Errorf("CompareKeys(%q, %q) = %d, reversed %d", a, b, c, d)
			}
		}
	}
}
