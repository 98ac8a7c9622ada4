package udiff

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	b := "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	want := `--- a/x.hcl
+++ b/x.hcl
@@ -1,6 +1,6 @@
 a
 b
-c
+C
 d
 e
 f
@@ -11,3 +11,4 @@
 k
 l
 m
+n
`
	if got := Unified("a/x.hcl", "b/x.hcl", []byte(a), []byte(b)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Unified("a", "b", []byte(a), []byte(a)); got != "" {
		t.Errorf("equal inputs give a diff:\n%s", got)
	}
}

func TestNoNewlineAtEnd(t *testing.T) {
	got := Unified("a", "b", []byte("x = 1"), []byte("x = 1\n"))
	want := "--- a\n+++ b\n@@ -1 +1 @@\n-x = 1\n\\ No newline at end of file\n+x = 1\n"
	if got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
}

func TestEmptySides(t *testing.T) {
	if got, want := Unified("a", "b", nil, []byte("x\ny\n")), "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"; got != want {
		t.Errorf("from empty: %q, want %q", got, want)
	}
	if got, want := Unified("a", "b", []byte("x\n"), nil), "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"; got != want {
		t.Errorf("to empty: %q, want %q", got, want)
	}
}

// apply replays a diff's hunks on a, so random inputs can check that
// every diff turns a into b exactly.
func apply(t *testing.T, a, d string) string {
	t.Helper()
	src := lines(a)
	var out []string
	pos := 0
	dl := strings.Split(d, "\n")
	for i := 2; i < len(dl); i++ {
		l := dl[i]
		switch {
		case strings.HasPrefix(l, "@@"):
			// "@@ -start[,len] +start[,len] @@": copy the lines before the
			// hunk; an empty range names the line after which it applies.
			old := strings.TrimPrefix(strings.Fields(l)[1], "-")
			startS, lenS, hasLen := strings.Cut(old, ",")
			start, err := strconv.Atoi(startS)
			if err != nil {
				t.Fatalf("bad hunk header %q", l)
			}
			if hasLen && lenS == "0" {
				start++
			}
			for pos < start-1 {
				out = append(out, src[pos])
				pos++
			}
		case strings.HasPrefix(l, " "):
			out = append(out, src[pos])
			pos++
		case strings.HasPrefix(l, "-"):
			pos++
		case strings.HasPrefix(l, "+"):
			s := l[1:] + "\n"
			if i+1 < len(dl) && strings.HasPrefix(dl[i+1], `\ No newline`) {
				s = l[1:]
			}
			out = append(out, s)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, "")
}

func TestRandomDiffsApply(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	gen := func() string {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(string(rune('a' + r.IntN(4))))
			b.WriteByte('\n')
		}
		if r.IntN(3) == 0 {
			return strings.TrimSuffix(b.String(), "\n")
		}
		return b.String()
	}
	for range 500 {
		a, b := gen(), gen()
		d := Unified("a", "b", []byte(a), []byte(b))
		if a == b {
			continue
		}
		if got := apply(t, a, d); got != b {
			t.Fatalf("diff does not turn a into b\na:\n%s\nb:\n%s\ndiff:\n%s\napplied:\n%s", a, b, d, got)
		}
	}
}
