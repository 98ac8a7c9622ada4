package emittest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/lang"
)

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

// Golden runs every testdata/golden/*.txtar case (internal/golden): build
// turns the case's platform.hcl into output files, and keep selects the
// ones the case pins under out/. With -update the out/ sections are
// rewritten.
func Golden(t *testing.T, build func(t *testing.T, p *ir.Program) map[string][]byte, keep func(path string) bool) {
	for _, c := range golden.Load(t, filepath.Join("testdata", "golden")) {
		t.Run(c.Name, func(t *testing.T) {
			var src []byte
			for _, f := range c.Archive.Files {
				if f.Name == "platform.hcl" {
					src = f.Data
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
			c.Check(t, got, golden.Update())
		})
	}
}
