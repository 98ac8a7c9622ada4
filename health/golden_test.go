package health_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/health"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/lang"
)

// TestGolden pins the Lua emitted for the rules in testdata/golden: each
// case is rule.hcl (and optionally env.json, the env.* values), and out/
// holds one script per rule plus the useOpenLibs flag of each.
func TestGolden(t *testing.T) {
	for _, c := range golden.Load(t, "testdata/golden") {
		t.Run(c.Name, func(t *testing.T) {
			var srcs []lang.SourceFile
			scope := health.Scope{}
			for _, f := range c.Archive.Files {
				switch {
				case strings.HasSuffix(f.Name, ".hcl"):
					srcs = append(srcs, lang.SourceFile{Name: f.Name, Bytes: f.Data})
				case f.Name == "env.json":
					env, err := health.DecodeJSON(f.Data)
					if err != nil {
						t.Fatal(err)
					}
					scope.Env = env.(map[string]any)
				}
			}
			m, diags := lang.ParseHealthFiles(srcs)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got := map[string]string{}
			var summary strings.Builder
			for _, h := range m.Health {
				r, diags := health.Compile(h, scope, health.Options{Origin: "a golden test", Files: m.Files})
				if diags.HasErrors() {
					t.Fatal(diags.Error())
				}
				key := strings.ReplaceAll(r.Kind, "/", "_")
				got[key+".lua"] = r.Lua
				fmt.Fprintf(&summary, "%s useOpenLibs=%v\n", r.Kind, r.UseOpenLibs)
			}
			got["summary.txt"] = summary.String()
			c.Check(t, got, golden.Update())
		})
	}
}
