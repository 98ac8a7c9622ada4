package archtest

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
		{"lint/rules", "rules read lang and ir only (docs/architecture.md)", []string{"compiler"}},
		{"health", "health compiles rules with the scope the compiler built", []string{"compiler", "compiler/ir"}},
		{"emit/argocd", "what the emitters share is in emit/internal/gitops", []string{"emit/argo"}},
		{"cmd/platc/internal/planview", "platc plan gets the grouping from plan, Argo's limits as numbers", []string{"emit/argo", "emit/all"}},
		{"plan", "plan knows no orchestrator", []string{"emit", "emit/argo"}},
		{"compiler/ir", "the IR is data", []string{"compiler", "health", "lang"}},
		{"manifest", "lint --scan and the importer share the manifest reader; it serves neither stage alone", []string{"lint", "importer", "compiler", "lang"}},
		{"detect", "lint --scan and the importer share the detectors; they read manifest.Objects only", []string{"lint", "importer", "compiler", "lang"}},
	}
	readSources(t)
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

// readSources reads every non-test Go file of the module. go test caches
// a passing result keyed on the files the test itself opened; the files go
// list reads in its own process are not among them, so without this a
// new import passes on a cached result (it did, and only a cold CI cache
// caught it).
func readSources(t *testing.T) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if name == "go.mod" || strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
