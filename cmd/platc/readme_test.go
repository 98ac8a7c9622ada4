package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/internal/exitcode"
)

// docBlock is one fenced code block of a Markdown page. Blocks whose
// info string names a file ("```hcl ref/apps.hcl") are the examples the
// tests run; the name is a path relative to a directory of the page's
// own.
type docBlock struct {
	lang, name, body string
	line             int
}

var fence = regexp.MustCompile("(?ms)^```(\\w*)(?: ([^\\n]+))?\\n(.*?)^```\\n")

func docBlocks(page string) ([]docBlock, error) {
	b, err := os.ReadFile(page)
	if err != nil {
		return nil, err
	}
	doc := string(b)
	var out []docBlock
	for _, m := range fence.FindAllStringSubmatchIndex(doc, -1) {
		blk := docBlock{lang: doc[m[2]:m[3]], body: doc[m[6]:m[7]], line: 1 + strings.Count(doc[:m[0]], "\n")}
		if m[4] >= 0 {
			blk.name = doc[m[4]:m[5]]
		}
		out = append(out, blk)
	}
	return out, nil
}

// writeDocBlocks writes the named blocks of a page under dir and returns
// the directories that hold its .hcl examples, sorted. An hcl block
// without a name is an error: every example must be runnable.
func writeDocBlocks(page, dir string) ([]string, error) {
	blocks, err := docBlocks(page)
	if err != nil {
		return nil, err
	}
	var dirs []string
	var errs []error
	for _, blk := range blocks {
		if blk.name == "" {
			if blk.lang == "hcl" {
				errs = append(errs, fmt.Errorf("%s:%d: an hcl example must name its file (```hcl DIR/FILE.hcl) so the tests can run it", page, blk.line))
			}
			continue
		}
		if !filepath.IsLocal(blk.name) {
			return nil, fmt.Errorf("%s:%d: %q is not a relative path", page, blk.line, blk.name)
		}
		p := filepath.Join(dir, filepath.FromSlash(blk.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if _, err := os.Stat(p); err == nil {
			errs = append(errs, fmt.Errorf("%s:%d: two examples write %s", page, blk.line, blk.name))
		}
		if err := os.WriteFile(p, []byte(blk.body), 0o644); err != nil {
			return nil, err
		}
		if blk.lang == "hcl" && !slices.Contains(dirs, filepath.Dir(p)) {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	slices.Sort(dirs)
	return dirs, errors.Join(errs...)
}

// docPages are the pages whose HCL examples must work as printed.
var docPages = []string{"../../README.md", "../../docs/language.md", "../../docs/health.md"}

// TestDocExamples runs every HCL example of the README and the docs as
// a newcomer would copy it: each directory of examples (a page's examples
// with the same directory form one platform) lints with no finding at
// all (--fail-on notice), is formatted (fmt --check), builds, and passes
// platc test. The rule pages are checked by TestRuleDocExamples, since
// their examples have findings on purpose.
func TestDocExamples(t *testing.T) {
	for _, page := range docPages {
		t.Run(filepath.Base(page), func(t *testing.T) {
			root := t.TempDir()
			dirs, err := writeDocBlocks(page, root)
			if err != nil {
				t.Error(err)
			}
			if len(dirs) == 0 {
				t.Fatalf("%s has no HCL example", page)
			}
			for _, dir := range dirs {
				rel, _ := filepath.Rel(root, dir)
				for _, args := range [][]string{
					{"lint", "--fail-on", "notice", dir},
					{"fmt", "--check", dir},
					{"build", "-o", filepath.Join(t.TempDir(), "out"), dir},
					{"test", dir},
				} {
					var stdout, stderr bytes.Buffer
					if code := run(append([]string{"platc"}, args...), &stdout, &stderr); code != exitcode.OK {
						t.Errorf("%s, example %s: platc %s: exit %d\n%s%s", page, rel, args[0], code, stdout.String(), stderr.String())
					}
				}
			}
		})
	}
}

// TestReadmeImport keeps the walkthrough of "Migrating an existing
// platform" honest: the summary it shows and the evidence comments of
// its HCL excerpt are what importing the acme fixture gives.
func TestReadmeImport(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(readme, []byte("## Migrating an existing platform"))
	if !ok {
		t.Fatal("README has no section \"Migrating an existing platform\"")
	}
	section, _, _ = bytes.Cut(section, []byte("\n## "))
	out := filepath.Join(t.TempDir(), "platform")
	t.Chdir("../../importer/testdata")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "import", "-o", out, "acme"}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	hcl, err := os.ReadFile(filepath.Join(out, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range bytes.Split(section, []byte("\n")) {
		l := bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(l, []byte("platc import: ")), bytes.HasPrefix(l, []byte("35 dependencies")), bytes.HasPrefix(l, []byte("8 hooks")):
			if !bytes.Contains(stdout.Bytes(), l) {
				t.Errorf("README shows %q, platc import prints:\n%s", l, stdout.String())
			}
			checked++
		case bytes.HasPrefix(l, []byte("# crd, ")), bytes.HasPrefix(l, []byte("# wait, ")):
			if !bytes.Contains(hcl, l) {
				t.Errorf("README shows %q, which the imported platform.hcl does not have", l)
			}
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("checked only %d lines of the README's walkthrough", checked)
	}
}
