package hostile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/importer"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

// The cases of issue 21 on what reaches `platc import`'s output from a
// hostile repository's file names and contents, and on its template
// engines and algorithms. Each imports a repository written here (file
// names with line breaks cannot be written in a txtar archive).

// leafApp is an Application of a chart from a Helm repository, with
// extra lines under spec.source.
func leafApp(name, extra string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ` + name + `
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://charts.example.com
    chart: web
    targetRevision: 1.0.0
` + extra + `  destination:
    server: https://kubernetes.default.svc
    namespace: web
`
}

// importCompiled imports dir the way `platc import` does, failing on an
// internal error (a platform that does not parse or compile), and
// returns the result with the report as the terminal would show it.
func importCompiled(t *testing.T, dir string) (*importer.Result, hcl.Diagnostics, string) {
	t.Helper()
	res, diags, err := importer.Import([]string{dir}, importer.Options{OutDir: t.TempDir()})
	if err != nil {
		t.Fatalf("internal error: %v", err)
	}
	if res == nil {
		t.Fatalf("nothing imported: %v", diags)
	}
	var text bytes.Buffer
	if err := res.Report.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := report.Text(&text, res.Files, diags, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	return res, diags, text.String()
}

// blocks are the top-level blocks of an HCL file, by type.
func blocks(t *testing.T, src []byte) []string {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(src, "platform.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("the imported platform does not parse: %v\n%s", diags, src)
	}
	var out []string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		out = append(out, b.Type)
	}
	return out
}

// noRaw fails when text holds a rune that drives a terminal or reorders
// text: C0 controls other than line feed and tab, DEL, C1, bidirectional
// and other format characters, line and paragraph separators.
func noRaw(t *testing.T, what, text string) {
	t.Helper()
	for i, r := range text {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r >= 0x200b && r <= 0x200f ||
			r >= 0x2028 && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x061c {
			t.Errorf("%s holds %U at byte %d: ...%q...", what, r, i, text[max(0, i-40):min(len(text), i+40)])
			return
		}
	}
}

// TestImportFileNames: file names from the repository reach the
// platform's comments, the hook and adopted copies' headers, the report
// and the diagnostics. A line break in a directory name injected an
// unauthenticated events block that compiled; ESC reached the terminal
// raw; U+202E stopped the import with an internal error.
func TestImportFileNames(t *testing.T) {
	for _, c := range []struct{ name, dir string }{
		{"line breaks inject an events block", "x\nevents {\n}\n#"},
		{"carriage return and form feed", "x\r}\fevents {\r}\r#"},
		{"line separator U+2028 and NEL", "x\u2028events {\u2029}\u0085#"},
		{"ESC sequences", "x\x1b[2J\x1b]0;pwned\x07\x1b[31m"},
		{"U+202E right-to-left override", "apps\u202egpj.exe"},
		{"zero-width and isolates", "a\u200bb\u2066c\u2069d\ufeff"},
		{"invalid UTF-8", "x\xff\xfe\x80y"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			// Two apps in the named directory: one plain, one adopted
			// (a cluster server over plain HTTP, which platc refuses), so
			// that the adopted copy's header and the report's adopted
			// section carry the name too.
			files := map[string]string{
				filepath.Join(c.dir, "web.yaml"):   leafApp("web", ""),
				filepath.Join(c.dir, "other.yaml"): strings.Replace(leafApp("other", ""), "https://kubernetes.default.svc", "http://other.example.com", 1),
				// Not YAML: a diagnostic whose detail names the file.
				filepath.Join(c.dir, "bad.yaml"): "a: [\n",
			}
			for name, data := range files {
				p := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res, diags, text := importCompiled(t, root)
			if len(diags) == 0 {
				t.Fatal("bad.yaml was not reported")
			}
			for _, l := range strings.Split(text, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "events {") || strings.HasPrefix(l, "}") {
					t.Errorf("the report or a diagnostic starts a line with text from a file name: %q", l)
				}
			}
			if got := blocks(t, res.HCL); strings.Join(got, " ") != "platform app app" {
				t.Errorf("top-level blocks %v, want platform and two apps:\n%s", got, res.HCL)
			}
			noRaw(t, "platform.hcl", string(res.HCL))
			noRaw(t, "the report and diagnostics", text)
			for _, f := range append(res.Adopted, res.Hooks...) {
				noRaw(t, f.Path, string(f.Data))
			}
			if len(res.Adopted) != 1 {
				t.Fatalf("adopted %d apps, want 1", len(res.Adopted))
			}
			// The name is still there to read, escaped.
			if !strings.Contains(string(res.HCL), "web.yaml:4") {
				t.Errorf("the comments lost the file name:\n%s", res.HCL)
			}
			mod, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: res.HCL}})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if _, diags := compiler.CompileAll(mod, compiler.Options{}); diags.HasErrors() {
				t.Fatal(diags)
			}
		})
	}
}

// nested is a YAML flow value n maps deep.
func nested(n int) string {
	return strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n)
}

// TestImportValues: Helm values the platform's language refuses however
// they are written (nested past lang.MaxNesting, control and
// bidirectional characters) used to stop the import with "internal
// error ... bug" and nothing written. The app is adopted instead, saying
// why; values just within the bound are still imported as values.
func TestImportValues(t *testing.T) {
	for _, c := range []struct{ name, values, adopted string }{
		{"nested 121 levels", nested(121), "nest more than 120"},
		{"nested 300 levels", nested(300), "nest more than 120"},
		{"nested 5,000 levels", nested(5000), "nest more than 120"},
		{"lists nested 121 levels", "{a: " + strings.Repeat("[", 120) + "x" + strings.Repeat("]", 120) + "}", "nest more than 120"},
		{"ESC in a value", `{a: "\e[2Jx"}`, "U+001B"},
		{"U+202E in a key", `{"a\u202eb": 1}`, "U+202E"},
		{"NUL in a value", `{a: "x\0y"}`, "U+0000"},
		// The bound, 120 maps and lists, holds strings that hclwrite
		// escapes; nesting over lang.MaxNesting still came out at 125.
		{"nested 120 levels", strings.Repeat("{a: ", 119) + `{"k-${x}": "s${x}%{if}\"\n"}` + strings.Repeat("}", 119), ""},
		{"lists nested 120 levels", "{a: " + strings.Repeat("[", 119) + `"s${x}"` + strings.Repeat("]", 119) + "}", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, map[string]string{"apps/web.yaml": leafApp("web", "    helm:\n      valuesObject: "+c.values+"\n")})
			res, diags, _ := importCompiled(t, dir)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if c.adopted == "" {
				if len(res.Adopted) != 0 || !bytes.Contains(res.HCL, []byte("values = ")) {
					t.Errorf("values within the bounds were not imported:\n%s", res.HCL)
				}
				return
			}
			if len(res.Report.Adopted) != 1 || !strings.Contains(strings.Join(res.Report.Adopted[0].Reasons, "; "), c.adopted) {
				t.Errorf("adopted %+v, want the app adopted because its values %s", res.Report.Adopted, c.adopted)
			}
		})
	}
}
