package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/platc/platc/internal/golden"
)

// TestFormatGolden formats in.hcl and compares it with golden.hcl, then
// formats golden.hcl and requires it to come out unchanged, as gofmt's
// tests do: formatting must reach a fixed point in one step.
func TestFormatGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/fmt/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fmt goldens: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string][]byte{}
			for _, f := range ar.Files {
				sec[f.Name] = f.Data
			}
			got, diags := Format("in.hcl", sec["in.hcl"])
			if diags.HasErrors() {
				t.Fatalf("in.hcl does not parse: %s", diags.Error())
			}
			if golden.Update() {
				for i := range ar.Files {
					if ar.Files[i].Name == "golden.hcl" {
						ar.Files[i].Data = got
					}
				}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if d := diff.Diff("golden.hcl", sec["golden.hcl"], "formatted", got); d != nil {
				t.Errorf("first run differs from golden.hcl:\n%s", d)
			}
			again, diags := Format("golden.hcl", sec["golden.hcl"])
			if diags.HasErrors() {
				t.Fatalf("golden.hcl does not parse: %s", diags.Error())
			}
			if d := diff.Diff("golden.hcl", sec["golden.hcl"], "formatted again", again); d != nil {
				t.Errorf("formatting golden.hcl changes it; fmt is not idempotent:\n%s", d)
			}
		})
	}
}

func TestFormatRefusesBrokenFiles(t *testing.T) {
	out, diags := Format("bad.hcl", []byte("app \"a\" {\n  x = \n"))
	if !diags.HasErrors() || out != nil {
		t.Errorf("broken input formatted: %q, %v", out, diags)
	}
}
