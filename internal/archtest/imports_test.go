package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/platc/platc/"

// Each package, with everything it imports (tests excluded), stays clear
// of the packages listed: go list -deps is the judge, as the issue that
// set these rules asked.
func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	rules := []struct {
		pkg, why  string
		forbidden []string
	}{
		{"lint", "lint reads the module and the IR; what the compiler decides is in the IR", []string{"compiler"}},
		{"lint/rules", "rules read lang and ir only (STYLE.md)", []string{"compiler"}},
		{"health", "health compiles rules with the scope the compiler built", []string{"compiler", "compiler/ir"}},
		{"emit/argocd", "what the emitters share is in emit/internal/gitops", []string{"emit/argo"}},
		{"cmd/platc/internal/planview", "platc plan gets the grouping from plan, Argo's limits as numbers", []string{"emit/argo", "emit/all"}},
		{"plan", "plan knows no orchestrator", []string{"emit", "emit/argo"}},
		{"compiler/ir", "the IR is data", []string{"compiler", "health", "lang"}},
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", mod+r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r.pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, f := range r.forbidden {
			if slices.Contains(deps, mod+f) {
				t.Errorf("%s imports %s (directly or not): %s", r.pkg, f, r.why)
			}
		}
	}
}
