package lang_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/platc/platc/internal/synth"
	. "github.com/platc/platc/lang"
)

// corpus is every HCL file the repository has: the example, the invalid
// platforms of testdata/bad, the fmt cases, and a large synthetic platform.
func corpus(t *testing.T) []SourceFile {
	t.Helper()
	var out []SourceFile
	ex, err := os.ReadFile("../examples/platform.hcl")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, SourceFile{Name: "platform.hcl", Bytes: ex})
	for _, glob := range []string{"../testdata/bad/*.txtar", "testdata/fmt/*.txtar"} {
		names, _ := filepath.Glob(glob)
		for _, name := range names {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range ar.Files {
				if strings.HasSuffix(f.Name, ".hcl") {
					out = append(out, SourceFile{Name: filepath.Base(name) + "/" + f.Name, Bytes: f.Data})
				}
			}
		}
	}
	if len(out) < 40 {
		t.Fatalf("only %d files in the corpus", len(out))
	}
	return append(out, SourceFile{Name: "synth.hcl", Bytes: synth.Generate(synth.Options{Apps: 300, CrossStack: true})})
}

// Cut into pieces however small, every file parses to exactly what HCL
// gives for the whole file: body, ranges, bytes and diagnostics.
func TestPiecesParseLikeTheWholeFile(t *testing.T) {
	srcs := corpus(t)
	for _, size := range []int{1, 40, 300, 4096} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			defer SetPieceSize(size)()
			files, diags := ParseFiles(srcs)
			joined, synthJoined := 0, false
			for k, s := range srcs {
				want, wantDiags := hclsyntax.ParseConfig(s.Bytes, s.Name, hcl.InitialPos)
				if !reflect.DeepEqual(want.Body, files[k].Body) || string(want.Bytes) != string(files[k].Bytes) {
					t.Errorf("%s: the body parsed in pieces differs from the whole file's", s.Name)
				}
				if fmt.Sprint(wantDiags) != fmt.Sprint(diags[k]) {
					t.Errorf("%s: diagnostics\n got %v\nwant %v", s.Name, diags[k], wantDiags)
				}
				if Joins(s.Bytes, s.Name) {
					joined++
					synthJoined = synthJoined || s.Name == "synth.hcl"
				}
			}
			// Most files are valid and cut where blocks start: they must
			// really be parsed in pieces, not fall back.
			if size <= 40 && joined < len(srcs)/2 || !synthJoined {
				t.Errorf("only %d of %d files were parsed in pieces (the synthetic one: %t)", joined, len(srcs), synthJoined)
			}
		})
	}
}

// Cuts that fall inside a heredoc, a block comment or a bracket spanning
// lines, or pieces that set the same top-level attribute, make the file
// be parsed whole: same body, same diagnostics.
func TestBadCutsFallBack(t *testing.T) {
	defer SetPieceSize(1)()
	for _, src := range []string{
		"a = <<EOT\nhello = 1\napp \"x\" {}\nEOT\nb = 2\n",
		"/*\napp \"x\" {}\n*/\nb = 2\n",
		"deps = [\napp.x,\napp.y,\n]\n",
		"a = 1\nb = 2\na = 3\n",
		"app \"x\" {\n}\napp \"y\" {\nbroken\n}\nc = 1\n",
		"x = \"${\nfoo}\"\n",
	} {
		files, diags := ParseFiles([]SourceFile{{Name: "f.hcl", Bytes: []byte(src)}})
		want, wantDiags := hclsyntax.ParseConfig([]byte(src), "f.hcl", hcl.InitialPos)
		if !reflect.DeepEqual(want.Body, files[0].Body) {
			t.Errorf("%q: body differs from the whole file's", src)
		}
		if fmt.Sprint(wantDiags) != fmt.Sprint(diags[0]) {
			t.Errorf("%q: diagnostics\n got %v\nwant %v", src, diags[0], wantDiags)
		}
	}
}

// A name given twice is parsed once, as hclparse.Parser does.
func TestDuplicateNames(t *testing.T) {
	files, diags := ParseFiles([]SourceFile{{Name: "a.hcl", Bytes: []byte("x = 1\n")}, {Name: "a.hcl", Bytes: []byte("broken")}})
	if files[0] != files[1] || len(diags[0]) != 0 || len(diags[1]) != 0 {
		t.Errorf("files %p %p, diagnostics %v %v", files[0], files[1], diags[0], diags[1])
	}
}
