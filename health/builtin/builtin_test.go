package builtin_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/internal/golden"
)

func TestLibraryTests(t *testing.T) {
	lib, err := builtin.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range lib.Health {
		tests, diags := health.Tests(h)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", h.Kind, diags.Error())
		}
		for _, tc := range tests {
			t.Run(h.Kind+"/"+tc.Name, func(t *testing.T) {
				r, diags := health.Compile(h, health.Scope{}.WithEnv(tc.Env), health.Options{Files: lib.Files})
				if diags.HasErrors() {
					t.Fatal(diags.Error())
				}
				o := health.Run(tc, r, builtin.ReadFile)
				if !o.Pass {
					t.Errorf("%s\n%s", o.Why, r.Lua)
				}
			})
		}
	}
}

// TestScripts pins the Lua of every built-in rule, compiled for an
// environment that sets nothing, as platc emits it into argocd-cm.
func TestScripts(t *testing.T) {
	lib, err := builtin.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range golden.Load(t, "testdata") {
		got := map[string]string{}
		var summary strings.Builder
		for _, h := range lib.Health {
			r, diags := health.Compile(h, health.Scope{}, health.Options{Origin: "platc's built-in library", Files: lib.Files})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got[strings.ReplaceAll(r.Kind, "/", "_")+".lua"] = r.Lua
			fmt.Fprintf(&summary, "%s useOpenLibs=%v tests=%d\n", r.Kind, r.UseOpenLibs, len(h.Tests))
		}
		got["summary.txt"] = summary.String()
		c.Check(t, got, golden.Update())
	}
}
