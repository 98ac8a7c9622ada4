package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/report"
)

// diagHeader and diagLocation find the start of each rendered diagnostic
// and its "on FILE:LINE:COL" line.
var (
	diagHeader   = regexp.MustCompile(`(?m)^(Error|Warning): `)
	diagLocation = regexp.MustCompile(`(?m)^  on [^\s:]+:\d+:\d+[,:]`)
)

// lintBad runs `platc lint` on dir and checks what every bad input must
// get: exit 3, the diagnostics on stdout (they are lint's findings),
// nothing on stderr (platc itself did not fail), a file:line:column for
// every diagnostic, in text and in JSON, and a note that the rules which
// need a compiled platform were skipped. It returns stdout with dir
// removed.
func lintBad(t *testing.T, dir string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run([]string{"platc", "lint", dir}, &stdout, &stderr)
	if code != exitcode.Invalid {
		t.Errorf("exit code = %d, want %d\nstderr:\n%s", code, exitcode.Invalid, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr should be empty, got:\n%s", stderr.String())
	}
	text := strings.ReplaceAll(stdout.String(), dir+string(filepath.Separator), "")
	if !strings.Contains(text, "\nLint ran ") {
		t.Errorf("no note that lint rules were skipped:\n%s", text)
	}
	shown := min(len(diagHeader.FindAllString(text, -1)), report.MaxText)
	if shown == 0 {
		t.Fatalf("no diagnostic printed:\n%s", text)
	}
	if got := len(diagLocation.FindAllString(text, -1)); got != shown {
		t.Errorf("%d diagnostics but %d file:line:column locations:\n%s", shown, got, text)
	}

	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"platc", "lint", "--format", "json", dir}, &stdout, &stderr); code != exitcode.Invalid {
		t.Errorf("--format json: exit code = %d, want %d", code, exitcode.Invalid)
	}
	var rep report.JSONReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("--format json: %v\n%s", err, stdout.String())
	}
	if rep.Errors == 0 {
		t.Errorf("--format json reports no errors")
	}
	if rep.Skipped == nil || len(rep.Skipped.Rules) == 0 {
		t.Errorf("--format json does not say which rules were skipped")
	}
	for _, d := range rep.Diagnostics {
		if d.Range == nil || d.Range.Start.Line == 0 || d.Range.Start.Column == 0 {
			t.Errorf("--format json: diagnostic %q has no line and column", d.Summary)
		}
	}
	return text
}

// TestBadInputCorpus runs every case under testdata/bad: each must be
// rejected with exit 3 and a located diagnostic, and the rendered text is
// pinned in the case's out/stderr.
func TestBadInputCorpus(t *testing.T) {
	cases := golden.Load(t, "../../testdata/bad")
	if len(cases) < 25 {
		t.Fatalf("the corpus has %d cases; it must keep at least 25", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dir := c.WriteInputs(t, t.TempDir())
			c.Check(t, map[string]string{"stdout": lintBad(t, dir)}, golden.Update())
		})
	}
}

// TestBadInputNonUTF8 feeds a file with invalid UTF-8 in a string and in
// an identifier.
func TestBadInputNonUTF8(t *testing.T) {
	dir := t.TempDir()
	src := []byte("platform \"acme\" {\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\napp \"web\" {\n  namespace = \"w\xff\xfeb\"\n}\napp \xc3\x28 {}\n")
	if err := os.WriteFile(filepath.Join(dir, "platform.hcl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	text := lintBad(t, dir)
	if !strings.Contains(text, "platform.hcl:5:") {
		t.Errorf("expected a diagnostic on line 5 (the invalid string):\n%s", text)
	}
}

// TestBadInputGarbage feeds a megabyte of random bytes. platc must reject
// it quickly with located diagnostics, printing a bounded number of them.
func TestBadInputGarbage(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 1<<20)
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	if err := os.WriteFile(filepath.Join(dir, "garbage.hcl"), garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	text := lintBad(t, dir)
	if n := len(diagHeader.FindAllString(text, -1)); n > report.MaxText {
		t.Errorf("printed %d diagnostics; text output is capped at %d", n, report.MaxText)
	}
}
