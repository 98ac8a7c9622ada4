package importer

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/report"
)

// outputs is everything an import produces, as the golden files hold it.
func outputs(t *testing.T, paths []string, opts Options, withJSON bool) map[string]string {
	t.Helper()
	res, diags, err := Import(paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var b strings.Builder
	if res != nil {
		_ = report.Text(&b, res.Files, diags, report.TextOptions{})
	} else {
		_ = report.Text(&b, nil, diags, report.TextOptions{})
	}
	got["diagnostics.txt"] = b.String()
	if res == nil {
		return got
	}
	got["platform.hcl"] = string(res.HCL)
	var rt strings.Builder
	if err := res.Report.WriteText(&rt); err != nil {
		t.Fatal(err)
	}
	got["report.txt"] = rt.String()
	if withJSON {
		var rj strings.Builder
		if err := res.Report.WriteJSON(&rj); err != nil {
			t.Fatal(err)
		}
		got["report.json"] = rj.String()
	}
	for _, f := range append(slices.Clip(res.Adopted), res.Hooks...) {
		got[f.Path] = string(f.Data)
	}
	return got
}

// The fixture repositories import into the platforms and reports pinned
// next to them: testdata/acme (RFC 1.2.4's structure) in acme.txtar,
// testdata/adopted (what platc cannot express) in adopted.txtar, and
// testdata/parity (the rest of an Application's vocabulary, issue 22)
// in parity.txtar.
func TestGoldenFixtures(t *testing.T) {
	for _, name := range []string{"acme", "adopted", "parity"} {
		t.Run(name, func(t *testing.T) {
			path := "testdata/" + name + ".txtar"
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c := golden.Case{Path: path, Name: name, Archive: ar}
			got := outputs(t, []string{"testdata/" + name}, Options{OutDir: "testdata/imported"}, true)
			// Same input, same bytes: a second import must not differ.
			if again := outputs(t, []string{"testdata/" + name}, Options{OutDir: "testdata/imported"}, true); !maps.Equal(got, again) {
				t.Error("two imports of the same tree differ")
			}
			c.Check(t, got, golden.Update())
		})
	}
}

// Each case in testdata/cases is a small repository (under repo/) and
// what importing it gives: bad input, adoption, cycles, ApplicationSets.
func TestGoldenCases(t *testing.T) {
	for _, c := range golden.Load(t, "testdata/cases") {
		t.Run(c.Name, func(t *testing.T) {
			abs, err := filepath.Abs(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			c.Path = abs
			dir := c.WriteInputs(t, t.TempDir())
			t.Chdir(dir)
			c.Check(t, outputs(t, []string{"repo"}, Options{OutDir: "imported"}, false), golden.Update())
		})
	}
}
