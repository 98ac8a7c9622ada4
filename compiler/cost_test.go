package compiler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// envWith is a platform whose environment holds s = a string of n bytes,
// and whose app "web" has the given lines.
func envWith(n int, app string) string {
	return strings.Replace(platformWith("", "", "", "", ""), `domain = "example.com"`, `domain = "example.com"
  s = "`+strings.Repeat("x", n)+`"`, 1) + fmt.Sprintf(`
app "web" {
  namespace = "web"
  %s
}
`, app)
}

// TestCostRefused: expressions whose value would grow with a power of the
// file's size are refused before HCL evaluates them.
func TestCostRefused(t *testing.T) {
	list := "[" + strings.Repeat("1, ", 300) + "1]"
	for _, c := range []struct {
		name, src, want string
	}{
		{"nested for", envWith(1, `source {
    path = "apps/web"
    helm { values = { v = [for a in `+list+` : [for b in `+list+` : [for c in `+list+` : 1]]] } }
  }`), "Value too large"},
		{"a long value repeated", envWith(512<<10, `source {
    path = "apps/web"
    helm { values = { v = "`+strings.Repeat("${env.s}", 64)+`" } }
  }`), "Value too large"},
		{"replace over an empty string", envWith(8<<10, `source {
    path = "apps/web"
    helm { values = { v = replace(env.s, "", env.s) } }
  }`), "Value too large"},
		{"join with a long separator", envWith(8<<10, `source {
    path = "apps/web"
    helm { values = { v = join(env.s, `+list+`) } }
  }`), "Value too large"},
		{"format width", envWith(1, `source {
    path = "apps/web"
    helm { values = { v = format("%999999999s", "x") } }
  }`), "Invalid function argument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := summaries(t, c.src)
			if !slices.Contains(got, c.want) {
				t.Errorf("diagnostics %v, want %q", got, c.want)
			}
		})
	}
}

// TestCostTotal: many attributes each within bounds, together beyond
// what one compilation evaluates, are refused once.
func TestCostTotal(t *testing.T) {
	var apps strings.Builder
	// Each attribute estimates at about 13 MB (a thousand copies of a
	// 200-byte string), under the limit for one.
	body := strings.Repeat("y", 200)
	for i := range 25 {
		fmt.Fprintf(&apps, "app \"a%d\" {\n  namespace = \"a\"\n  source {\n    path = \"apps/a\"\n    helm { values = { v = [for x in env.l : \"%s\"] } }\n  }\n}\n", i, body)
	}
	src := strings.Replace(envWith(1, ""), `s = "x"`, `s = "x"
  l = [`+strings.Repeat("1, ", 1000)+`1]`, 1) + apps.String()
	got := summaries(t, src)
	n := 0
	for _, s := range got {
		if s == "Platform too large to evaluate" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d diagnostics, want one \"Platform too large to evaluate\"", n)
	}
}

// TestCostAccepted: ordinary expressions, for and splat expressions
// included, are well within bounds.
func TestCostAccepted(t *testing.T) {
	src := envWith(64<<10, `source {
    path = "apps/web"
    helm {
      values = {
        upper  = [for s in ["a", "b", "c"] : upper(s)]
        names  = [for k, v in { a = 1, b = 2 } : "${k}-${v}" if v > 1]
        splat  = [{ n = "a" }, { n = "b" }][*].n
        joined = join(",", ["x", "y", env.s])
        fmt    = format("%-10s|%5d", "name", 42)
        copies = "${env.s}${env.s}"
      }
    }
  }`)
	if got := summaries(t, src); len(got) > 0 {
		t.Errorf("refused: %v", got)
	}
}

func TestWidestVerb(t *testing.T) {
	for f, want := range map[string]int{"%s": 0, "%10s": 10, "%-10.3f|%5d": 10, "%%999s": 0, "%[1]*d": 1} {
		if got := widestVerb(f); got != want {
			t.Errorf("widestVerb(%q) = %d, want %d", f, got, want)
		}
	}
	if got := widestVerb("%999999999999999999999s"); got <= formatMaxWidth {
		t.Errorf("a huge width reads as %d", got)
	}
}
