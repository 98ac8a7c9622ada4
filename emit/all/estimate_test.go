package all_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/lang"
)

func compileSrc(t *testing.T, src []byte) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: src}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// TestEstimateCoversOutput: the compiler's output budget is checked on an
// estimate (compiler.EstimateOutput), made before any emitter runs; it
// must bound what the emitters write, in files and bytes, and stay within
// a small factor of it on ordinary platforms, or the budget would refuse
// platforms that fit.
func TestEstimateCoversOutput(t *testing.T) {
	values := func(v string) []byte {
		return []byte(`platform "p" {
  git { repo_url = "https://git.example.com/p.git" }
}
app "a" {
  namespace = "a"
  source {
    chart    = "a"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm { values = ` + v + ` }
  }
}
app "b" {
  namespace  = "b"
  depends_on = [app.a]
  source { path = "apps/b" }
}
`)
	}
	nested := "{ v = \"x\" }"
	for range 100 {
		nested = "{ k = " + nested + " }"
	}
	var w strings.Builder
	w.WriteString("{\n")
	for i := range 20_000 {
		w.WriteString("k" + strconv.Itoa(i) + " = [" + strconv.Itoa(i) + ", true, null, \"v\"]\n")
	}
	wide := w.String() + "}"
	for _, c := range []struct {
		name  string
		p     *ir.Program
		loose float64 // the most the estimate may exceed the output by
	}{
		{"example", emittest.Example(t, "../.."), 4},
		{"synth-10000", compileSrc(t, synth.Generate(synth.Options{Apps: 10_000, CrossStack: true})), 4},
		{"no apps", compileSrc(t, []byte("platform \"p\" {\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\n")), 20},
		{"long string", compileSrc(t, values(`{ s = "`+strings.Repeat(`é\"\\`, 20_000)+`" }`)), 0},
		{"many lines deep", compileSrc(t, values(strings.Replace(nested, `"x"`, `"`+strings.Repeat(`l\n`, 20_000)+`"`, 1))), 0},
		{"wide", compileSrc(t, values(wide)), 0},
		{"long strings", compileSrc(t, bytes.ReplaceAll(values("{}"), []byte(`"apps/b"`), []byte(`"apps/`+strings.Repeat("b", 1000)+`"`))), 0},
		{"parity", compileSrc(t, parityPlatform(t)), 0},
		{"vocabulary at its bounds", compileSrc(t, vocabularyAtBounds()), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, err := all.Emit(c.p)
			if err != nil {
				t.Fatal(err)
			}
			var bytes int64
			for _, f := range files {
				bytes += int64(len(f.Data))
			}
			e := compiler.EstimateOutput(c.p)
			t.Logf("%d files, %d bytes; estimated %d files, %d bytes", len(files), bytes, e.Files, e.Bytes)
			if int64(len(files)) > e.Files || bytes > e.Bytes {
				t.Errorf("emitted %d files, %d bytes: more than the estimate of %d files, %d bytes", len(files), bytes, e.Files, e.Bytes)
			}
			if c.loose > 0 && float64(e.Bytes) > c.loose*float64(bytes) {
				t.Errorf("estimate %d bytes is more than %v × the %d bytes emitted", e.Bytes, c.loose, bytes)
			}
		})
	}
}

// parityPlatform is the GitOps golden that uses every part of the
// Application vocabulary (issue 22).
func parityPlatform(t *testing.T) []byte {
	t.Helper()
	ar, err := txtar.ParseFile("../internal/gitops/testdata/golden/parity.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "platform.hcl" {
			return f.Data
		}
	}
	t.Fatal("no platform.hcl in parity.txtar")
	return nil
}

// vocabularyAtBounds is an app with as much of the Application
// vocabulary as the compiler allows, each string as long and as costly
// to write as its grammar allows.
func vocabularyAtBounds() []byte {
	var b strings.Builder
	b.WriteString("platform \"p\" {\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\napp \"a\" {\n  namespace = \"a\"\n")
	text := strings.Repeat("é\\\"x", 4096/5)
	b.WriteString("  annotations = {\n")
	for i := range 64 {
		fmt.Fprintf(&b, "    \"example.com/k%d\" = \"%s\"\n", i, text)
	}
	b.WriteString("  }\n  info = {\n")
	for i := range 64 {
		fmt.Fprintf(&b, "    \"n%d\" = \"%s\"\n", i, text)
	}
	b.WriteString("  }\n")
	for i := range 16 {
		fmt.Fprintf(&b, "  source {\n    path = \"apps/%s\"\n    ref = \"r%d\"\n    kustomize {\n", strings.Repeat("p", 1000), i)
		for range 8 {
			fmt.Fprintf(&b, "      patch {\n        patch = \"%s\"\n      }\n", strings.Repeat("- op: x\\n", 1000))
		}
		b.WriteString("    }\n  }\n")
	}
	for range 64 {
		b.WriteString("  ignore_differences {\n    kind = \"Deployment\"\n    json_pointers = [" + strings.Repeat("\"/spec/~0~1\", ", 64) + "]\n  }\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}
