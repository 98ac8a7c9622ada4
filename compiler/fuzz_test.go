package compiler

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

// FuzzCompile feeds arbitrary bytes through the parser, the compiler and
// the text renderer. None of them may panic, and every error must carry a
// location.
func FuzzCompile(f *testing.F) {
	if b, err := os.ReadFile("../examples/platform.hcl"); err == nil {
		f.Add(b)
	}
	// Deep nesting of every kind, just inside and just past the limit,
	// and the hostile corpus's platform with a payload in every field.
	for _, n := range []int{lang.MaxNesting / 2, lang.MaxNesting + 1} {
		for _, open := range []string{"(", "[", "{a=", `"${`, "!", "true ? 1 : "} {
			close := map[string]string{"(": ")", "[": "]", "{a=": "}", `"${`: `}"`}[open]
			f.Add([]byte("platform \"p\" {}\nenvironment \"e\" {\n  v = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + "\n}\n"))
		}
	}
	if b, err := os.ReadFile("../testdata/hostile/platform.hcl"); err == nil {
		f.Add(regexp.MustCompile(`«[a-z0-9_.]+:([^»]*)»`).ReplaceAll(b, []byte("${1}{{x}}$${y}")))
		f.Add(regexp.MustCompile(`«[a-z0-9_.]+:([^»]*)»`).ReplaceAll(b, []byte("${1}")))
	}
	// The GitOps goldens use every part of the Application vocabulary
	// (several sources, refs, kustomize, directory, plugin, Helm
	// parameters, ignore_differences).
	golden, _ := filepath.Glob("../emit/internal/gitops/testdata/golden/*.txtar")
	cases, _ := filepath.Glob("../testdata/bad/*.txtar")
	cases = append(cases, golden...)
	for _, c := range cases {
		ar, err := txtar.ParseFile(c)
		if err != nil {
			continue
		}
		for _, file := range ar.Files {
			if filepath.Ext(file.Name) == ".hcl" {
				f.Add(file.Data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		// Go's fuzzer does not notice a hang. Crashing the worker does get
		// the input saved under testdata/fuzz, so a stuck input is turned
		// into a crash (generously: the machine may be busy).
		watchdog := time.AfterFunc(30*time.Second, func() {
			panic(fmt.Sprintf("FuzzCompile: no result after 30s for a %d-byte input", len(src)))
		})
		defer watchdog.Stop()
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "fuzz.hcl", Bytes: src}})
		if !diags.HasErrors() {
			for _, env := range EnvNames(m) {
				_, cd := Compile(m, Options{Env: env})
				diags = append(diags, cd...)
			}
		}
		for _, d := range diags {
			if d.Severity == 0 || d.Summary == "" {
				t.Fatalf("diagnostic without severity or summary: %#v", d)
			}
			if d.Severity == hcl.DiagError && (d.Subject == nil || d.Subject.Filename == "" || d.Subject.Start.Line == 0) {
				t.Fatalf("error without a file:line:column: %s: %s", d.Summary, d.Detail)
			}
		}
		if err := report.Text(io.Discard, m.Files, diags, report.TextOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
