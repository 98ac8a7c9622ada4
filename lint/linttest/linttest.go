package linttest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/manifest"
	"github.com/platc/platc/report"
)

// ScanDir is the subdirectory of a case directory that is linted as if
// passed to --scan.
const ScanDir = "scan"

// Run lints every case in dir with the given rules and checks the
// findings against the `# want` comments of the case's files.
//
// A case is a *.hcl file directly in dir (a one-file platform), or a
// subdirectory: its *.hcl files are the platform, its files may be hook
// manifests, and its scan/ subdirectory, if any, is scanned.
//
// A want comment is `# want "re" ...` (or with backquotes, or after //):
// each regular expression must match the message of exactly one finding
// on that line, and every finding must be matched. `# want +N "re"`
// expects the finding N lines below, for lines that cannot carry a
// comment (such as the inside of a YAML block scalar).
func Run(t *testing.T, dir string, rules ...*lint.Rule) {
	t.Helper()
	RunWith(t, dir, Options{Rules: rules})
}

// Options are the settings of RunWith.
type Options struct {
	// Rules are the rules to run.
	Rules []*lint.Rule
	// Known lists every registered rule name, so suppressions of rules
	// that are not run are not taken for typos. Empty means the names of
	// Rules.
	Known []string
}

// RunWith is Run with options.
func RunWith(t *testing.T, dir string, opts Options) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
		case strings.HasSuffix(e.Name(), ".hcl"):
		default:
			continue
		}
		n++
		t.Run(strings.TrimSuffix(e.Name(), ".hcl"), func(t *testing.T) {
			t.Helper()
			check(t, path, e.IsDir(), opts)
		})
	}
	if n == 0 {
		t.Fatalf("%s has no test cases", dir)
	}
}

// Result lints one case and returns the findings, failing the test if
// the platform does not compile or a rule breaks.
func Result(t *testing.T, path string, isDir bool, opts Options) hcl.Diagnostics {
	t.Helper()
	return result(t, path, isDir, opts, true)
}

// result lints one case, with the compiled programs or, as platc lint
// does when compilation fails, without them.
func result(t *testing.T, path string, isDir bool, opts Options, withPrograms bool) hcl.Diagnostics {
	t.Helper()
	mod, diags := lang.Parse(path)
	if diags.HasErrors() {
		t.Fatalf("fixture does not parse:\n%s", render(mod, diags))
	}
	progs, cdiags := compiler.CompileAll(mod, compiler.Options{})
	if cdiags.HasErrors() {
		t.Fatalf("fixture does not compile:\n%s", render(mod, cdiags))
	}
	cfg := lint.Config{Module: mod, Programs: progs, Rules: opts.Rules, Known: opts.Known}
	if !withPrograms {
		cfg.Programs = nil
	}
	if scan := filepath.Join(path, ScanDir); isDir && exists(scan) {
		set, sdiags := manifest.Load(scan)
		if len(sdiags) > 0 {
			t.Fatalf("scan of the fixture reports problems:\n%s", render(mod, sdiags))
		}
		cfg.Manifests = set
	}
	found, err := lint.Run(cfg)
	if err != nil {
		t.Fatalf("a rule broke: %v", err)
	}
	return found
}

func check(t *testing.T, path string, isDir bool, opts Options) {
	t.Helper()
	found := Result(t, path, isDir, opts)
	again := Result(t, path, isDir, opts)
	if fmt.Sprint(summaries(found)) != fmt.Sprint(summaries(again)) {
		t.Errorf("findings differ between two runs:\n%v\n%v", summaries(found), summaries(again))
	}
	// A Syntax rule runs when the platform does not compile, with no
	// program at all: it must find the same without one.
	if syntaxOnly(opts.Rules) {
		bare := result(t, path, isDir, opts, false)
		if fmt.Sprint(summaries(found)) != fmt.Sprint(summaries(bare)) {
			t.Errorf("a Syntax rule finds something else without the compiled program:\nwith:    %v\nwithout: %v", summaries(found), summaries(bare))
		}
	}
	wants := collectWants(t, path, isDir)
	for _, d := range found {
		r := d.Subject
		if r == nil || r.Start.Line == 0 || r.Start.Column == 0 {
			t.Errorf("finding %q has no file:line:column", d.Summary)
			continue
		}
		if first := []rune(d.Summary); len(first) == 0 || unicode.IsUpper(first[0]) || strings.HasSuffix(d.Summary, ".") {
			t.Errorf("%s: message %q must be lowercase with no trailing period", report.Location(*r), d.Summary)
		}
		if strings.HasPrefix(d.Detail, "If this is deliberate") {
			t.Errorf("%s: finding %q has no detail saying why it matters and how to fix it", report.Location(*r), d.Summary)
		}
		k := key{filepath.Clean(r.Filename), r.Start.Line}
		ws := wants[k]
		i := slices.IndexFunc(ws, func(re *regexp.Regexp) bool { return re.MatchString(d.Summary) })
		if i < 0 {
			t.Errorf("%s: unexpected finding: %s", report.Location(*r), d.Summary)
			continue
		}
		wants[k] = slices.Delete(ws, i, i+1)
	}
	keys := make([]key, 0, len(wants))
	for k := range wants {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.file != b.file {
			return strings.Compare(a.file, b.file)
		}
		return a.line - b.line
	})
	for _, k := range keys {
		for _, re := range wants[k] {
			t.Errorf("%s:%d: no finding matched %q", k.file, k.line, re)
		}
	}
}

// syntaxOnly reports whether every rule is marked Syntax (the
// invalid-suppression rule, which judges the others, aside).
func syntaxOnly(rules []*lint.Rule) bool {
	n := 0
	for _, r := range rules {
		switch {
		case r == lint.InvalidSuppression:
		case !r.Syntax:
			return false
		default:
			n++
		}
	}
	return n > 0
}

type key struct {
	file string
	line int
}

// wantComment finds a want comment and its optional line offset.
var wantComment = regexp.MustCompile(`(?:#|//)\s*want(?:\s+([+-]\d+))?\s+(["` + "`" + `].*)$`)

// collectWants reads the want comments of every .hcl and YAML file of a
// case.
func collectWants(t *testing.T, path string, isDir bool) map[key][]*regexp.Regexp {
	t.Helper()
	var files []string
	if isDir {
		err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if n := d.Name(); !d.IsDir() && (strings.HasSuffix(n, ".hcl") || strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	} else {
		files = []string{path}
	}
	wants := map[key][]*regexp.Regexp{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			m := wantComment.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n := i + 1
			if m[1] != "" {
				off, _ := strconv.Atoi(m[1])
				n += off
			}
			rest := strings.TrimSpace(m[2])
			for rest != "" {
				q, err := strconv.QuotedPrefix(rest)
				if err != nil {
					t.Fatalf("%s:%d: bad want comment: %v", f, i+1, err)
				}
				pat, _ := strconv.Unquote(q)
				re, err := regexp.Compile(pat)
				if err != nil {
					t.Fatalf("%s:%d: bad want pattern: %v", f, i+1, err)
				}
				k := key{filepath.Clean(f), n}
				wants[k] = append(wants[k], re)
				rest = strings.TrimSpace(rest[len(q):])
			}
		}
	}
	return wants
}

func summaries(diags hcl.Diagnostics) []string {
	var out []string
	for _, d := range diags {
		out = append(out, report.Location(*d.Subject)+": "+d.Summary)
	}
	return out
}

func render(mod *lang.Module, diags hcl.Diagnostics) string {
	var files map[string]*hcl.File
	if mod != nil {
		files = mod.Files
	}
	var b strings.Builder
	_ = report.Text(&b, files, diags, report.TextOptions{})
	return b.String()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
