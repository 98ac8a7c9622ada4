package safeyaml

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Bomb is the classic "billion laughs" document: levels of anchors, each
// listing the one before nine times, about 1 KB for 9^levels nodes.
func Bomb(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a0: &a0 [\"lol\"]\n")
	for i := 1; i <= levels; i++ {
		refs := strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9)
		fmt.Fprintf(&b, "  a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(refs, ","))
	}
	return b.String()
}

func TestBombRefusedAtItsLine(t *testing.T) {
	src := Bomb(9)
	if len(src) > 1200 {
		t.Fatalf("the bomb is %d bytes, not about 1 KB", len(src))
	}
	docs, err := Documents([]byte(src))
	var ye *Error
	if !errors.As(err, &ye) || !ye.Alias {
		t.Fatalf("Documents(bomb) = %d docs, %v; want an alias error", len(docs), err)
	}
	// a0..a3 expand to 2, 28, 262 and 2,368 nodes (an alias counts
	// itself too): the aliases of a1..a3 add 2,628, and the fourth *a3 of
	// a4's line takes that past 10,000.
	if ye.Line != 10 || ye.Column != 24 || !strings.Contains(ye.Msg, "*a3") {
		t.Errorf("error at line %d column %d (%s); want 10:24, the fourth *a3", ye.Line, ye.Column, ye.Msg)
	}
	if len(docs) != 0 {
		t.Errorf("the refused document was returned")
	}
}

func TestAliasInsideItsOwnAnchor(t *testing.T) {
	for _, src := range []string{
		"a: &a [*a]\n",
		"a: &a {b: [1, {c: *a}]}\n",
		"- &x\n  - &y [*x]\n",
	} {
		_, err := Documents([]byte(src))
		var ye *Error
		if !errors.As(err, &ye) || !ye.Alias || !strings.Contains(ye.Msg, "inside its own anchor") {
			t.Errorf("%q: err = %v; want a cycle refused", src, err)
		}
	}
}

func TestOrdinaryAliasesPass(t *testing.T) {
	// What real values files do: defaults merged into many entries.
	var b strings.Builder
	b.WriteString("defaults: &d\n  replicas: 2\n  image: {repository: nginx, tag: \"1.27\"}\n  resources: {limits: {cpu: 100m, memory: 64Mi}}\n")
	for i := range 500 {
		fmt.Fprintf(&b, "svc%d:\n  <<: *d\n  port: %d\n", i, 8000+i)
	}
	docs, err := Documents([]byte(b.String()))
	if err != nil || len(docs) != 1 {
		t.Fatalf("Documents = %d docs, %v", len(docs), err)
	}
	// yaml.v3 itself still decodes it, merge keys and all.
	var v map[string]map[string]any
	if err := docs[0].Decode(&v); err != nil || v["svc499"]["replicas"] != 2 {
		t.Fatalf("decode: %v, %v", err, v["svc499"])
	}
}

func TestBoundScalesWithTheDocument(t *testing.T) {
	// 30,000 written nodes may gain as many through aliases, not more.
	big := func(aliases int) string {
		var b strings.Builder
		b.WriteString("x: &x [1, 2, 3, 4, 5, 6, 7, 8, 9]\nfill:\n")
		for range 15_000 {
			b.WriteString("- f\n")
		}
		b.WriteString("refs:\n")
		for range aliases {
			b.WriteString("- *x\n")
		}
		return b.String()
	}
	if _, err := Documents([]byte(big(1_500))); err != nil {
		t.Errorf("15,000 nodes of aliases in a document of over 16,500: %v", err)
	}
	if _, err := Documents([]byte(big(4_000))); err == nil {
		t.Errorf("40,000 nodes of aliases in a document of about 19,000 passed")
	}
}

func TestAnchorsAcrossDocuments(t *testing.T) {
	// yaml.v3 keeps anchors from one document of a stream to the next.
	src := Bomb(3) + "---\nb: [" + strings.TrimSuffix(strings.Repeat("*a3,", 20), ",") + "]\n"
	if _, err := Documents([]byte(src)); err == nil {
		t.Errorf("a second document aliasing the first one's anchors 20 × 1,000 nodes passed")
	}
}

func TestSyntaxErrorLine(t *testing.T) {
	_, err := Documents([]byte("a: 1\nb: [1, 2\nc: 3\n"))
	var ye *Error
	if !errors.As(err, &ye) || ye.Alias || ye.Line < 2 {
		t.Fatalf("err = %#v; want a syntax error from line 2 on", err)
	}
	if err := Check([]byte("a: *nowhere\n")); err == nil {
		t.Errorf("an unknown anchor passed")
	}
}

// TestPos: a diagnostic's position for each kind of error Documents
// returns, and for one it does not.
func TestPos(t *testing.T) {
	_, syntax := Documents([]byte("a: 1\nb: [1, 2\nc: 3\n"))
	_, bomb := Documents([]byte(Bomb(9)))
	for _, c := range []struct {
		err       error
		line, col int
	}{
		{syntax, syntax.(*Error).Line, 1}, // yaml.v3 gives no column
		{bomb, 10, 24},
		{fmt.Errorf("reading: %w", bomb), 10, 24},
		{errors.New("not from safeyaml"), 1, 1},
	} {
		if l, col := Pos(c.err); l != c.line || col != c.col || l < 1 {
			t.Errorf("Pos(%v) = %d:%d, want %d:%d", c.err, l, col, c.line, c.col)
		}
	}
}

// expanded counts the nodes of doc with every alias followed, giving up
// past limit.
func expanded(n *yaml.Node, limit int, count *int) bool {
	if *count++; *count > limit {
		return false
	}
	if n.Kind == yaml.AliasNode {
		return expanded(n.Alias, limit, count)
	}
	for _, c := range n.Content {
		if !expanded(c, limit, count) {
			return false
		}
	}
	return true
}

func written(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += written(k)
	}
	return c
}

// FuzzAliases: whatever Documents accepts can be walked with aliases
// followed, and the walk ends within the documented bound; it never
// panics on any input.
func FuzzAliases(f *testing.F) {
	for _, s := range []string{
		Bomb(2), Bomb(9), "a: &a [*a]\n", "a: &a 1\nb: *a\n", "x: &x {<<: *x}\n",
		"- &a [1, 2]\n- &b [*a, *a]\n- [*b, *b, *b]\n", "a: &a 1\n---\nb: *a\n",
		"k: &k v\n*k : w\n", "[&a a, *a, &a b, *a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		docs, err := Documents(b)
		if err != nil {
			var ye *Error
			if !errors.As(err, &ye) || ye.Line < 1 {
				t.Fatalf("error %v is not an *Error with a line", err)
			}
		}
		for _, d := range docs {
			w := written(d)
			limit := w + max(MaxAliasNodes, w)
			n := 0
			if !expanded(d, limit, &n) {
				t.Fatalf("a document of %d nodes passed but expands past %d", w, limit)
			}
		}
	})
}
