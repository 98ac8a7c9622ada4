package rules_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
)

// TestRegistry does what go/analysis.Validate does, plus what the docs
// rely on: every rule is valid, has its docs/rules/<name>.md page with
// the sections users look for, and a fixture directory with expectations;
// nothing is documented or tested that is not registered.
func TestRegistry(t *testing.T) {
	all := rules.All()
	if err := lint.Validate(all); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(all, lint.InvalidSuppression) {
		t.Error("invalid-suppression is not registered")
	}
	for _, r := range all {
		t.Run(r.Name, func(t *testing.T) {
			checkPage(t, r)
			checkFixtures(t, r)
		})
	}
	names := rules.Names()
	pages, _ := filepath.Glob("../../docs/rules/*.md")
	for _, p := range pages {
		if name := strings.TrimSuffix(filepath.Base(p), ".md"); !slices.Contains(names, name) {
			t.Errorf("%s documents no registered rule", p)
		}
	}
	dirs, _ := os.ReadDir("testdata")
	for _, d := range dirs {
		if !slices.Contains(names, d.Name()) {
			t.Errorf("testdata/%s holds fixtures of no registered rule", d.Name())
		}
	}
}

var fence = regexp.MustCompile("(?m)^```(\\w+)")

func checkPage(t *testing.T, r *lint.Rule) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../..", r.DocPath()))
	if err != nil {
		t.Errorf("rule %s has no documentation page: %v", r.Name, err)
		return
	}
	page := string(b)
	lines := strings.Split(page, "\n")
	if lines[0] != "# "+r.Name {
		t.Errorf("%s: first line is %q, want %q", r.DocPath(), lines[0], "# "+r.Name)
	}
	if len(lines) < 3 || lines[2] != r.Title() {
		t.Errorf("%s: the line after the heading must be the rule's title %q", r.DocPath(), r.Title())
	}
	wantSev := "Severity: " + r.Severity.String() + "."
	if !strings.Contains(page, "\n"+wantSev) {
		t.Errorf("%s: no %q line", r.DocPath(), wantSev)
	}
	last := 0
	for _, h := range []string{"\n## Example\n", "\n## Why\n", "\n## How to fix\n"} {
		i := strings.Index(page, h)
		if i < 0 {
			t.Errorf("%s: no %q section", r.DocPath(), strings.TrimSpace(h))
			continue
		}
		if i < last {
			t.Errorf("%s: section %q is out of order (Example, Why, How to fix)", r.DocPath(), strings.TrimSpace(h))
		}
		last = i
	}
	if stops := strings.Contains(page, "platc build refuses"); stops != r.StopsBuild() {
		t.Errorf("%s: the page must say \"platc build refuses\" exactly when the rule's findings stop a build (StopsBuild %v)", r.DocPath(), r.StopsBuild())
	}
	var kinds []string
	for _, m := range fence.FindAllStringSubmatch(page, -1) {
		kinds = append(kinds, m[1])
	}
	if !slices.Contains(kinds, "hcl") || !slices.Contains(kinds, "text") {
		t.Errorf("%s: the example needs an hcl block and the literal text output", r.DocPath())
	}
}

func checkFixtures(t *testing.T, r *lint.Rule) {
	t.Helper()
	dir := filepath.Join("testdata", r.Name)
	wants := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		wants += strings.Count(string(b), "# want ")
		return nil
	})
	if err != nil {
		t.Errorf("rule %s has no fixture directory: %v", r.Name, err)
		return
	}
	if wants == 0 {
		t.Errorf("%s has no # want expectations, so the rule is never seen to report", dir)
	}
}
