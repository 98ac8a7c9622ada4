package compiler

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

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
	cases, _ := filepath.Glob("../testdata/bad/*.txtar")
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
		}
		if err := report.Text(io.Discard, m.Files, diags, report.TextOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
