package builtin_test

import (
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/lang"
)

// TestDocs keeps docs/health.md in step with the library: every built-in
// kind has a row in the table with the right number of samples, and
// every setting is documented.
func TestDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/health.md")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := builtin.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range lib.Health {
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(h.Kind) + "`.*\\| (\\d+) \\|$").FindSubmatch(doc)
		if row == nil {
			t.Errorf("docs/health.md has no table row for %s", h.Kind)
			continue
		}
		n := 0
		_ = fs.WalkDir(os.DirFS("library/testdata/"+h.Kind), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
				n++
			}
			return nil
		})
		if got, _ := strconv.Atoi(string(row[1])); got != n {
			t.Errorf("docs/health.md says %s has %d samples; library/testdata has %d", h.Kind, got, n)
		}
		if len(h.Tests) < n {
			t.Errorf("%s has %d samples but only %d tests; every sample should be tested", h.Kind, n, len(h.Tests))
		}
	}
	// Every sample is some test's object.
	used := map[string]bool{}
	for _, h := range lib.Health {
		tests, _ := health.Tests(h)
		for _, tc := range tests {
			used[tc.Object] = true
		}
	}
	_ = fs.WalkDir(os.DirFS("."), "library/testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") && !used[p] {
			t.Errorf("%s is not the object of any test", p)
		}
		return nil
	})
	for _, s := range builtin.Settings {
		if !strings.Contains(string(doc), "| `"+s.Name+"` |") {
			t.Errorf("docs/health.md does not document the setting %s", s.Name)
		}
	}
}

// TestLibraryFormatted keeps the library in the layout `platc fmt` writes,
// like any platform file.
func TestLibraryFormatted(t *testing.T) {
	lib, err := builtin.Library()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range lib.FileNames {
		src, err := builtin.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		got, diags := lang.Format(name, src)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if string(got) != string(src) {
			t.Errorf("%s is not formatted; run platc fmt health/builtin/library", name)
		}
	}
}
