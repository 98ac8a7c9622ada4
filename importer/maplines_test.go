package importer

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mapLinesQuadratic is mapLines as it was before issue 21: every
// template line tried for every output line. It is kept as the
// reference the linear one must agree with, and for the benchmark.
func mapLinesQuadratic(tmpl, out []string) []int {
	pats := make([]*regexp.Regexp, len(tmpl))
	exact := make([]string, len(tmpl))
	for i, l := range tmpl {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !strings.Contains(t, "{{") {
			exact[i] = t
			continue
		}
		static := action.Split(t, -1)
		if strings.TrimSpace(strings.Join(static, "")) == "" {
			continue
		}
		var b strings.Builder
		b.WriteString("^")
		for k, s := range static {
			if k > 0 {
				b.WriteString(".*?")
			}
			b.WriteString(regexp.QuoteMeta(s))
		}
		b.WriteString("$")
		pats[i] = regexp.MustCompile(b.String())
	}
	match := func(j int, t string) bool {
		if pats[j] != nil {
			return pats[j].MatchString(t)
		}
		return exact[j] != "" && exact[j] == t
	}
	res := make([]int, len(out))
	cur := 0
	for i, l := range out {
		t := strings.TrimSpace(l)
		found := -1
		if t != "" {
			for k := 0; k < len(tmpl) && found < 0; k++ {
				if j := (cur + k) % len(tmpl); match(j, t) {
					found = j
				}
			}
		}
		if found >= 0 {
			cur = found
		}
		res[i] = cur + 1
	}
	return res
}

// chartLike is a template of about n lines as charts write them (static
// lines, lines with actions, a range and an include) and its output,
// with the range run reps times.
func chartLike(r *rand.Rand, n, reps int) (tmpl, out []string) {
	words := []string{"name", "image", "port", "env", "value", "labels", "app", "- name", "spec", "replicas"}
	word := func() string { return words[r.IntN(len(words))] }
	var body []string
	for len(tmpl)+len(body) < n {
		switch r.IntN(6) {
		case 0:
			tmpl = append(tmpl, fmt.Sprintf("  %s: {{ .Values.%s }}", word(), word()))
			out = append(out, fmt.Sprintf("  %s: v%d", tmpl[len(tmpl)-1][2:strings.Index(tmpl[len(tmpl)-1], ":")], r.IntN(9)))
		case 1:
			tmpl = append(tmpl, "{{- include \"helper\" . | nindent 2 }}")
			for range r.IntN(4) {
				out = append(out, fmt.Sprintf("  included%d: x", r.IntN(99)))
			}
		case 2:
			body = body[:0]
			tmpl = append(tmpl, "{{- range .Values.items }}")
			for range 1 + r.IntN(4) {
				body = append(body, fmt.Sprintf("  - %s: {{ .%s }}", word(), word()))
			}
			tmpl = append(tmpl, body...)
			tmpl = append(tmpl, "{{- end }}")
			for range reps {
				for _, b := range body {
					out = append(out, b[:strings.Index(b, ":")]+": item")
				}
			}
		default:
			l := fmt.Sprintf("  %s: %d", word(), r.IntN(20))
			tmpl = append(tmpl, l)
			out = append(out, l)
		}
	}
	return tmpl, out
}

// The linear mapping gives the lines the quadratic one gave, on charts
// whose range bodies and includes are within maxPatternTries.
func TestMapLinesAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 21))
	for i := range 200 {
		tmpl, out := chartLike(r, 1+r.IntN(300), r.IntN(5))
		if diff := cmp.Diff(mapLinesQuadratic(tmpl, out), mapLines(tmpl, out)); diff != "" {
			t.Fatalf("case %d (-before +now):\n%s\ntemplate:\n%s\noutput:\n%s", i, diff, strings.Join(tmpl, "\n"), strings.Join(out, "\n"))
		}
	}
}

// hostileLines is the shape that made the mapping quadratic: n template
// lines with actions, and an include's n output lines none of them
// matches, each of which was tried against every template line.
func hostileLines(n int) (tmpl, out []string) {
	tmpl = append(tmpl, `{{- include "big" . | nindent 2 }}`)
	for i := range n {
		tmpl = append(tmpl, fmt.Sprintf("  key%d: {{ .Values.v | quote }}-%d", i, i))
		out = append(out, fmt.Sprintf("  other%d: text", i))
	}
	for i := range n {
		out = append(out, fmt.Sprintf(`  key%d: "x"-%d`, i, i))
	}
	return tmpl, out
}

// BenchmarkMapLines compares the mappings on the hostile shape at a few
// sizes: the quadratic one grows 4x per doubling, the linear one 2x.
// The quadratic one is skipped above 2,000 lines (seconds per run, and
// make bench runs every benchmark).
func BenchmarkMapLines(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 16000, 64000} {
		tmpl, out := hostileLines(n)
		b.Run(fmt.Sprintf("linear/%d", n), func(b *testing.B) {
			for b.Loop() {
				mapLines(tmpl, out)
			}
		})
		if n <= 2000 {
			b.Run(fmt.Sprintf("quadratic/%d", n), func(b *testing.B) {
				for b.Loop() {
					mapLinesQuadratic(tmpl, out)
				}
			})
		}
	}
}

// The key lines after the include still map to their template lines.
func TestMapLinesHostile(t *testing.T) {
	tmpl, out := hostileLines(500)
	got := mapLines(tmpl, out)
	for i := range 500 {
		if want := i + 2; got[500+i] != want {
			t.Fatalf("output line %d (%q) maps to %d, want %d", 500+i+1, out[500+i], got[500+i], want)
		}
	}
}
