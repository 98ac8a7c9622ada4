package argo

import (
	"path/filepath"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/lang"
)

// TestGolden pins the complete workflows output of small platforms, so a
// change to any emitted byte shows in review as a diff of YAML.
func TestGolden(t *testing.T) {
	for _, c := range golden.Load(t, "testdata/golden") {
		t.Run(c.Name, func(t *testing.T) {
			dir := c.WriteInputs(t, t.TempDir())
			m, diags := lang.Parse(filepath.Join(dir, "platform.hcl"))
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			p, diags := compiler.Compile(m, compiler.Options{})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			files, err := Emitter{}.Emit(p)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, f := range files {
				got[f.Path] = string(f.Data)
			}
			c.Check(t, got, golden.Update())
		})
	}
}
