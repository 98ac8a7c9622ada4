package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/internal/golden"
)

var (
	docFence   = regexp.MustCompile("(?ms)^```(\\w+)(?: ([^\\n]+))?\\n(.*?)^```\\n")
	docCommand = regexp.MustCompile("(?m)^`(platc lint [^`]*)` prints:$")
)

// TestRuleDocExamples runs the example of every docs/rules page and
// requires the page to show exactly what platc prints, so the docs cannot
// drift from the code. An example writes platform.hcl from its hcl block
// and each `yaml PATH` block to PATH, runs the command the page names,
// and must show a finding of the page's rule. Update the pages with
// go test -run TestRuleDocExamples -update.
func TestRuleDocExamples(t *testing.T) {
	pages, err := filepath.Glob("../../docs/rules/*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no rule pages: %v", err)
	}
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".md")
		t.Run(name, func(t *testing.T) {
			abs, err := filepath.Abs(page)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			doc := string(b)
			example, _, ok := strings.Cut(doc, "\n## Why\n")
			if !ok {
				t.Fatalf("%s has no Why section", page)
			}
			cmd := docCommand.FindStringSubmatchIndex(example)
			if cmd == nil {
				t.Fatalf("%s: the example must say \"`platc lint ...` prints:\" before its output", page)
			}
			dir := t.TempDir()
			var want []int // indexes of the text block after the command
			for _, m := range docFence.FindAllStringSubmatchIndex(example, -1) {
				lang, arg, body := example[m[2]:m[3]], "", example[m[6]:m[7]]
				if m[4] >= 0 {
					arg = example[m[4]:m[5]]
				}
				var file string
				switch {
				case lang == "hcl":
					file = "platform.hcl"
				case lang == "yaml" && arg != "":
					file = arg
				case lang == "text" && m[0] > cmd[1]:
					want = m[6:8]
					continue
				default:
					continue
				}
				p := filepath.Join(dir, filepath.FromSlash(file))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if want == nil {
				t.Fatalf("%s: no ```text block with the output after the command", page)
			}
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			args := append([]string{"platc"}, strings.Fields(example[cmd[2]:cmd[3]])[1:]...)
			run(args, &stdout, &stderr)
			got := stdout.String()
			if !strings.Contains(got, "\nRule "+name+" (") {
				t.Errorf("%s: the example shows no %s finding:\n%s", page, name, got)
			}
			if golden.Update() {
				doc = doc[:want[0]] + got + doc[want[1]:]
				if err := os.WriteFile(abs, []byte(doc), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if expected := example[want[0]:want[1]]; expected != got {
				t.Errorf("%s: the example's output is out of date; run go test -run TestRuleDocExamples -update\n--- page\n%s\n--- platc\n%s", page, expected, got)
			}
		})
	}
}

var (
	rfcSection = regexp.MustCompile(`\bRFC (\d\.\d+(?:\.\d+)?)\b`)
	invariant  = regexp.MustCompile(`\bINV-(\d+)\b`)
	// Documents platc's authors worked from that do not ship with it.
	unshipped = regexp.MustCompile(`ARGO-NOTES|E2E-NOTES|VALIDATORS\.md|DESIGN\.md|STYLE\.md`)
)

// TestRFCCitations keeps every citation leading somewhere a reader can
// go: each RFC section ("RFC 5.3") and invariant ("INV-7") that a file
// platc ships cites is covered by docs/rfc-deploy-0001.md, and no file
// cites a document that does not ship (issue 25).
func TestRFCCitations(t *testing.T) {
	b, err := os.ReadFile("../../docs/rfc-deploy-0001.md")
	if err != nil {
		t.Fatal(err)
	}
	summary := string(b)
	covered := map[string]bool{}
	for _, line := range strings.Split(summary, "\n") {
		if m := regexp.MustCompile(`^(?:#{2,4} |- \*\*)(\d\.\d+(?:\.\d+)?) `).FindStringSubmatch(line); m != nil {
			covered[m[1]] = true
		}
		if m := regexp.MustCompile(`^\| INV-(\d+) \|`).FindStringSubmatch(line); m != nil {
			covered["INV-"+m[1]] = true
		}
	}
	root := "../.."
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.Contains(".go .md .hcl .sh .yaml .yml .txtar .lua .j2 .txt", filepath.Ext(path)+" ") && d.Name() != "Dockerfile" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(src)
		for _, m := range rfcSection.FindAllStringSubmatch(text, -1) {
			if !covered[m[1]] {
				t.Errorf("%s cites RFC %s, which docs/rfc-deploy-0001.md does not cover", rel, m[1])
				covered[m[1]] = true // once
			}
		}
		for _, m := range invariant.FindAllStringSubmatch(text, -1) {
			if !covered["INV-"+m[1]] {
				t.Errorf("%s cites INV-%s, which docs/rfc-deploy-0001.md does not list", rel, m[1])
			}
		}
		if m := unshipped.FindString(text); m != "" && rel != "cmd/platc/docs_test.go" {
			t.Errorf("%s cites %s, which does not ship with platc; cite docs/ or the upstream source instead", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
