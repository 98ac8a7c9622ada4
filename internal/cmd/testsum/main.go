// Command testsum reads `go test -json` and prints what `go test` prints
// (a line per package, the output of failing tests), plus what plain
// `go test ./...` hides: every skipped test with its reason, grouped, so
// an integration test that could not run is seen instead of passing as
// "ok". make test pipes the suite through it. It exits 1 when a test or
// a build failed, or when no package result was read.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/platc/platc/internal/english"
)

// event is one line of test2json output.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// skip is one group of skipped tests: same package, same reason.
type skip struct {
	pkg, reason string
	tests       []string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout, "github.com/platc/platc/"))
}

func run(in io.Reader, out io.Writer, module string) int {
	outputs := map[string][]string{} // "pkg\x00test" -> output lines
	var skips []*skip
	failed, packages := false, 0
	short := func(pkg string) string { return strings.TrimPrefix(pkg, module) }
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			// go test prints some errors (a package that does not build
			// under an older toolchain) as plain text.
			fmt.Fprintln(out, sc.Text())
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output", "build-output":
			outputs[key] = append(outputs[key], e.Output)
		case "build-fail":
			failed = true
			fmt.Fprintf(out, "FAIL\t%s [build failed]\n", e.Package)
		case "fail":
			failed = true
			if e.Test != "" {
				fmt.Fprint(out, strings.Join(outputs[key], ""))
				continue
			}
			packages++
			fmt.Fprintf(out, "FAIL\t%s\t%.1fs\n", e.Package, e.Elapsed)
		case "pass":
			if e.Test == "" {
				packages++
				fmt.Fprintf(out, "ok  \t%s\t%.1fs\n", e.Package, e.Elapsed)
			}
		case "skip":
			if e.Test == "" {
				packages++
				continue // a package without tests
			}
			reason := skipReason(outputs[key])
			i := slices.IndexFunc(skips, func(s *skip) bool { return s.pkg == e.Package && s.reason == reason })
			if i < 0 {
				skips = append(skips, &skip{pkg: e.Package, reason: reason})
				i = len(skips) - 1
			}
			skips[i].tests = append(skips[i].tests, e.Test)
		}
		if e.Action == "pass" || e.Action == "skip" {
			delete(outputs, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testsum:", err)
		return 1
	}
	if len(skips) > 0 {
		n := 0
		for _, s := range skips {
			n += len(s.tests)
		}
		fmt.Fprintf(out, "\n%d %s skipped:\n", n, english.Plural(n, "test"))
		for _, s := range skips {
			tests := s.tests
			if len(tests) > 3 {
				tests = append(tests[:3:3], fmt.Sprintf("and %d more", len(s.tests)-3))
			}
			fmt.Fprintf(out, "SKIP\t%s: %s\n\t%s\n", short(s.pkg), strings.Join(tests, ", "), s.reason)
		}
	}
	if packages == 0 {
		fmt.Fprintln(out, "testsum: no package results; is the input go test -json?")
		return 1
	}
	if failed {
		return 1
	}
	return 0
}

// skipReason is what a skipped test said: its last line of output other
// than the "--- SKIP" line and the "=== RUN" line, trimmed of the
// file:line prefix.
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		if _, rest, ok := strings.Cut(l, ".go:"); ok {
			if _, msg, ok := strings.Cut(rest, ": "); ok {
				l = msg
			}
		}
		return strings.TrimPrefix(l, "SKIP: ")
	}
	return "(no reason given)"
}
