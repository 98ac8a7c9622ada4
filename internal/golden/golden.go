// Package golden reads and rewrites txtar golden files: a leading comment
// that says what the case is about, input files, and everything platc
// produced under out/. Tests compare maps of out/ path to content, so a
// missing, extra or changed output shows up by name in one diff.
//
// It is test support only; nothing in platc's binary imports it.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// update is the -update flag of every golden test in platc, declared
// once here: a test binary that registered it twice would panic.
var update = flag.Bool("update", false, "rewrite the expected outputs of golden tests (out/ sections of testdata txtar files) instead of comparing them")

// Update reports whether the test run was given -update.
func Update() bool { return *update }

// OutPrefix marks the sections a test produces rather than reads.
const OutPrefix = "out/"

// Case is one parsed golden file.
type Case struct {
	Path    string
	Name    string
	Archive *txtar.Archive
}

// Load parses every *.txtar file in dir, sorted by name.
func Load(t testing.TB, dir string) []Case {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no golden files in %s", dir)
	}
	slices.Sort(paths)
	cases := make([]Case, 0, len(paths))
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, Case{Path: p, Name: strings.TrimSuffix(filepath.Base(p), ".txtar"), Archive: ar})
	}
	return cases
}

// WriteInputs writes the case's non-out/ files into dir and returns dir.
func (c Case) WriteInputs(t testing.TB, dir string) string {
	t.Helper()
	for _, f := range c.Archive.Files {
		if strings.HasPrefix(f.Name, OutPrefix) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Want returns the case's out/ sections, keyed by name without "out/".
func (c Case) Want() map[string]string {
	want := map[string]string{}
	for _, f := range c.Archive.Files {
		if name, ok := strings.CutPrefix(f.Name, OutPrefix); ok {
			want[name] = string(f.Data)
		}
	}
	return want
}

// Check compares got with the case's out/ sections, or rewrites them when
// update is set. Inputs and the leading comment are kept as they are.
func (c Case) Check(t *testing.T, got map[string]string, update bool) {
	t.Helper()
	got = normalize(got)
	if update {
		c.rewrite(t, got)
		return
	}
	if diff := cmp.Diff(c.Want(), got); diff != "" {
		t.Errorf("%s: outputs differ (-want +got):\n%s\nupdate with: go test -run '%s' -update", c.Path, diff, t.Name())
	}
}

func (c Case) rewrite(t *testing.T, got map[string]string) {
	t.Helper()
	ar := &txtar.Archive{Comment: c.Archive.Comment}
	for _, f := range c.Archive.Files {
		if !strings.HasPrefix(f.Name, OutPrefix) {
			ar.Files = append(ar.Files, f)
		}
	}
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ar.Files = append(ar.Files, txtar.File{Name: OutPrefix + n, Data: []byte(got[n])})
	}
	if err := os.WriteFile(c.Path, txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// normalize ends every non-empty output with a newline, as txtar sections
// always do, so a file without one still round-trips.
func normalize(got map[string]string) map[string]string {
	out := make(map[string]string, len(got))
	for name, data := range got {
		if data != "" && !strings.HasSuffix(data, "\n") {
			data += "\n"
		}
		out[name] = data
	}
	return out
}
