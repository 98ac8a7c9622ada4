package emittest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/lang"
)

var update = flag.Bool("update", false, "rewrite the out/ sections of testdata/golden/*.txtar")

// Compile compiles one HCL file's source for env ("" for the first).
func Compile(t testing.TB, name string, src []byte, env string) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: name, Bytes: src}})
	if diags.HasErrors() {
		t.Fatalf("parse %s: %s", name, diags)
	}
	p, diags := compiler.Compile(m, compiler.Options{Env: env})
	if diags.HasErrors() {
		t.Fatalf("compile %s: %s", name, diags)
	}
	return p
}

// Example compiles examples/platform.hcl; root is the path from the
// calling package to the repository root.
func Example(t testing.TB, root string) *ir.Program {
	t.Helper()
	m, diags := lang.Parse(filepath.Join(root, "examples", "platform.hcl"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// Emit runs the emitters and returns every file by path. Two files with
// the same path, or a file without the platc header, fail the test.
func Emit(t testing.TB, p *ir.Program, emitters ...emit.Emitter) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, e := range emitters {
		files, err := e.Emit(p)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		for _, f := range files {
			if _, dup := out[f.Path]; dup {
				t.Fatalf("%s: %s emitted twice", e.Name(), f.Path)
			}
			if !bytes.HasPrefix(f.Data, []byte(emit.Header)) {
				t.Errorf("%s: %s does not start with the platc header", e.Name(), f.Path)
			}
			out[f.Path] = f.Data
		}
	}
	return out
}

// Write writes files under dir.
func Write(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Golden runs every testdata/golden/*.txtar case: build turns the case's
// platform.hcl into output files, and keep selects the ones the case pins
// under out/. With -update the out/ sections are rewritten.
func Golden(t *testing.T, build func(t *testing.T, p *ir.Program) map[string][]byte, keep func(path string) bool) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden cases in testdata/golden")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			want := map[string]string{}
			for _, f := range ar.Files {
				switch {
				case f.Name == "platform.hcl":
					src = f.Data
				case strings.HasPrefix(f.Name, "out/"):
					want[strings.TrimPrefix(f.Name, "out/")] = string(f.Data)
				}
			}
			if src == nil {
				t.Fatal("no platform.hcl section")
			}
			got := map[string]string{}
			for path, data := range build(t, Compile(t, "platform.hcl", src, "")) {
				if keep(path) {
					got[path] = string(data)
				}
			}
			if *update {
				rewrite(t, file, ar, got)
				return
			}
			for _, path := range union(want, got) {
				w, inWant := want[path]
				g, inGot := got[path]
				switch {
				case !inGot:
					t.Errorf("out/%s: pinned but no longer emitted", path)
				case !inWant:
					t.Errorf("out/%s: emitted but not pinned", path)
				case w != g:
					t.Errorf("out/%s differs:\n%s", path, lineDiff(w, g))
				}
			}
			if t.Failed() {
				t.Logf("update with: go test -run 'Golden/%s' -update", name)
			}
		})
	}
}

func union(a, b map[string]string) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func rewrite(t *testing.T, file string, ar *txtar.Archive, got map[string]string) {
	var kept []txtar.File
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "out/") {
			kept = append(kept, f)
		}
	}
	paths := make([]string, 0, len(got))
	for p := range got {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		kept = append(kept, txtar.File{Name: "out/" + p, Data: []byte(got[p])})
	}
	ar.Files = kept
	if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lineDiff shows the first differing line with a little context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	line := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return "<end of file>"
	}
	return "line " + strconv.Itoa(i+1) + ":\n  want: " + line(w, i) + "\n  got:  " + line(g, i)
}
