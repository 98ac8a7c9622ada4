package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/internal/sarifcheck"
)

// TestLintGolden runs platc lint on each case in testdata/lint, from the
// case's directory so paths print as users see them, and pins stdout,
// stderr and the exit code. The first line of a case's comment holds the
// arguments ("args: --scan manifests platform.hcl").
func TestLintGolden(t *testing.T) {
	for _, c := range golden.Load(t, "testdata/lint") {
		t.Run(c.Name, func(t *testing.T) {
			dir := c.WriteInputs(t, t.TempDir())
			first, _, _ := strings.Cut(string(c.Archive.Comment), "\n")
			argLine, ok := strings.CutPrefix(first, "args:")
			if !ok {
				t.Fatalf("%s: the comment must start with a line \"args: ...\"", c.Path)
			}
			// Check rewrites the case on -update, after the Chdir.
			abs, err := filepath.Abs(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			c.Path = abs
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"platc", "lint"}, strings.Fields(argLine)...), &stdout, &stderr)
			c.Check(t, map[string]string{
				"stdout": stdout.String(),
				"stderr": stderr.String(),
				"exit":   fmt.Sprint(code),
			}, golden.Update())
		})
	}
}

// TestLintSARIFValidates runs failing lint cases with --format sarif and
// validates the output against the official SARIF 2.1.0 schema: lint
// findings with rule metadata, scan findings in YAML files, and a
// compiler error whose cycle hops are relatedLocations.
func TestLintSARIFValidates(t *testing.T) {
	cases := golden.Load(t, "testdata/lint")
	byName := map[string]golden.Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	for _, tc := range []struct {
		name, args string
		exit       int
		related    bool
	}{
		{"scan-tree", "--scan manifests platform.hcl", exitcode.Failure, false},
		{"findings", "platform.hcl", exitcode.Failure, true},
		{"cycle", "platform.hcl", exitcode.Invalid, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := byName[tc.name]
			if !ok {
				t.Fatalf("no case %s in testdata/lint", tc.name)
			}
			dir := c.WriteInputs(t, t.TempDir())
			t.Chdir(dir)
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"platc", "lint", "--format", "sarif"}, strings.Fields(tc.args)...), &stdout, &stderr)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s", code, tc.exit, stderr.String())
			}
			if err := sarifcheck.Validate(stdout.Bytes()); err != nil {
				t.Fatalf("SARIF does not validate: %v\n%s", err, stdout.String())
			}
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Rules []struct {
								ID       string                 `json:"id"`
								HelpURI  string                 `json:"helpUri"`
								Short    struct{ Text string }  `json:"shortDescription"`
								Full     struct{ Text string }  `json:"fullDescription"`
								Defaults struct{ Level string } `json:"defaultConfiguration"`
							} `json:"rules"`
						} `json:"driver"`
					} `json:"tool"`
					Results []struct {
						RuleID  string            `json:"ruleId"`
						Related []json.RawMessage `json:"relatedLocations"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &log); err != nil {
				t.Fatal(err)
			}
			run := log.Runs[0]
			if len(run.Results) == 0 {
				t.Fatal("no results")
			}
			ids := map[string]bool{}
			for _, r := range run.Tool.Driver.Rules {
				ids[r.ID] = true
				if r.Short.Text == "" || r.Full.Text == "" || r.Defaults.Level == "" || !strings.HasPrefix(r.HelpURI, "https://") {
					t.Errorf("rule %s lacks metadata: %+v", r.ID, r)
				}
			}
			related := false
			for _, r := range run.Results {
				if !ids[r.RuleID] {
					t.Errorf("result names rule %q, which the driver does not describe", r.RuleID)
				}
				related = related || len(r.Related) > 0
			}
			if related != tc.related {
				t.Errorf("relatedLocations present = %v, want %v", related, tc.related)
			}
		})
	}
}

// The example platform is what newcomers copy: it must lint clean with
// the default --fail-on, with its manifests scanned too, and be
// formatted.
func TestExampleLintsClean(t *testing.T) {
	for _, args := range [][]string{
		{"lint", "../../examples/platform.hcl"},
		{"lint", "--scan", "../../examples/apps", "../../examples/platform.hcl"},
		{"fmt", "--check", "../../examples"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"platc"}, args...), &stdout, &stderr)
		if code != exitcode.OK || stdout.Len() > 0 || stderr.Len() > 0 {
			t.Errorf("platc %s: exit %d, want 0 and no output\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	}
}

// TestLintExitCodes pins the exit codes of lint, rules, explain and fmt,
// which testscript cannot see: 0 clean, 1 findings at or above --fail-on
// or unformatted files under --check, 3 a rejected platform or a bad
// invocation.
func TestLintExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string { return writeFile(t, dir, name, src) }
	const header = "platform \"acme\" {\n  git {\n    repo_url = \"https://git.example.com/platform.git\"\n    revision = \"v1.0.0\"\n  }\n}\n"
	clean := write("clean/platform.hcl", header+"app \"db\" {}\n")
	notice := write("notice/platform.hcl", header+"app \"a\" {}\napp \"b\" {\n  depends_on = [app.a]\n}\napp \"c\" {\n  depends_on = [app.a, app.b]\n}\n")
	warning := write("warning/platform.hcl", header+"stack \"empty\" {}\n")
	errorFinding := write("error/platform.hcl", header+"app \"a\" {\n  namespace = \"a\"\n  source {\n    chart    = \"a\"\n    repo_url = \"https://charts.example.com\"\n    version  = \"^1.0.0\"\n  }\n}\n")
	outside := write("outside/platform.hcl", header+"app \"a\" {\n  namespace = \"a\"\n  source { path = \"apps/a\" }\n}\n")
	cycle := write("cycle/platform.hcl", header+"app \"a\" {\n  depends_on = [app.b]\n}\napp \"b\" {\n  depends_on = [app.a]\n}\n")
	manifests := filepath.Dir(write("manifests/job.yaml", "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n"))
	unformatted := write("fmt/bad.hcl", "app \"a\" {\nx=1\n}\n")
	broken := write("fmt-broken/bad.hcl", "app \"a\" {\n")

	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"clean", []string{"lint", clean}, exitcode.OK},
		{"clean sarif", []string{"lint", "--format", "sarif", clean}, exitcode.OK},
		{"notice passes by default", []string{"lint", notice}, exitcode.OK},
		{"notice fails with --fail-on notice", []string{"lint", "--fail-on", "notice", notice}, exitcode.Failure},
		{"warning fails by default", []string{"lint", warning}, exitcode.Failure},
		{"warning passes with --fail-on error", []string{"lint", "--fail-on", "error", warning}, exitcode.OK},
		{"lint error fails", []string{"lint", "--fail-on", "error", errorFinding}, exitcode.Failure},
		{"disabled rule", []string{"lint", "--disable", "empty-stack", warning}, exitcode.OK},
		{"rule off by default", []string{"lint", "--fail-on", "notice", outside}, exitcode.OK},
		{"rule enabled", []string{"lint", "--fail-on", "notice", "--enable", "app-outside-stack", outside}, exitcode.Failure},
		{"scan finding", []string{"lint", "--scan", manifests, clean}, exitcode.Failure},
		{"scan dir missing", []string{"lint", "--scan", filepath.Join(dir, "nope"), clean}, exitcode.Invalid},
		{"cycle", []string{"lint", cycle}, exitcode.Invalid},
		{"cycle sarif", []string{"lint", "--format", "sarif", cycle}, exitcode.Invalid},
		{"bad fail-on", []string{"lint", "--fail-on", "fatal", clean}, exitcode.Invalid},
		{"unknown rule enabled", []string{"lint", "--enable", "no-such-rule", clean}, exitcode.Invalid},
		{"unknown rule disabled", []string{"lint", "--disable", "empty-stak", clean}, exitcode.Invalid},
		{"rules", []string{"rules"}, exitcode.OK},
		{"rules with argument", []string{"rules", "x"}, exitcode.Invalid},
		{"explain", []string{"explain", "undeclared-hook"}, exitcode.OK},
		{"explain unknown", []string{"explain", "undeclared-hok"}, exitcode.Invalid},
		{"explain nothing", []string{"explain"}, exitcode.Invalid},
		{"fmt formatted", []string{"fmt", "--check", filepath.Dir(clean)}, exitcode.OK},
		{"fmt check unformatted", []string{"fmt", "--check", unformatted}, exitcode.Failure},
		{"fmt diff unformatted", []string{"fmt", "--diff", unformatted}, exitcode.OK},
		{"fmt syntax error", []string{"fmt", "--check", broken}, exitcode.Invalid},
		{"fmt missing path", []string{"fmt", filepath.Join(dir, "nope.hcl")}, exitcode.Invalid},
		{"fmt flag after path", []string{"fmt", unformatted, "--check"}, exitcode.Failure},
		{"unknown flag after path", []string{"fmt", unformatted, "--chekc"}, exitcode.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"platc"}, tc.args...), &stdout, &stderr); got != tc.want {
				t.Errorf("platc %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, got, tc.want, stdout.String(), stderr.String())
			}
		})
	}
	// --check and --diff never write.
	if b, _ := os.ReadFile(unformatted); string(b) != "app \"a\" {\nx=1\n}\n" {
		t.Errorf("fmt --check or --diff rewrote the file:\n%s", b)
	}
}

// The README shows `platc rules`; it must be what platc prints.
func TestReadmeRulesTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "judge what the compiler accepts:\n\n```\n")
	if !ok {
		t.Fatal("README has no rules table after \"judge what the compiler accepts:\"")
	}
	table, _, _ := strings.Cut(after, "```")
	var b bytes.Buffer
	writeRules(&b)
	if table != b.String() {
		t.Errorf("README's rules table is out of date; paste the output of platc rules:\n%s", b.String())
	}
}

// fmt rewrites the file a symlink points to and keeps the link.
func TestFmtFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.hcl")
	if err := os.WriteFile(target, []byte("app \"a\" {\nx=1\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.hcl")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "fmt", link}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	b, _ := os.ReadFile(target)
	if string(b) != "app \"a\" {\n  x = 1\n}\n" {
		t.Errorf("target not formatted:\n%s", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("permissions changed to %v", fi.Mode().Perm())
	}
}

// A platform past a real limit of the emitted workflows (here the node
// budget) is what build refuses; lint reports it too, the same
// diagnostic at the platform block, with the exit code of invalid input.
func TestLintReportsEmitterLimits(t *testing.T) {
	dir := t.TempDir()
	src := "platform \"acme\" {\n  git {\n    repo_url = \"https://git.example.com/platform.git\"\n    revision = \"v1.0.0\"\n  }\n  workflows {\n    node_budget = 10\n  }\n}\n"
	for i := range 12 {
		src += fmt.Sprintf("app \"a%d\" {}\n", i)
	}
	path := writeFile(t, dir, "platform.hcl", src)
	var lintOut, lintErr, buildOut, buildErr bytes.Buffer
	if got := run([]string{"platc", "lint", path}, &lintOut, &lintErr); got != exitcode.Invalid {
		t.Fatalf("lint: exit %d, want %d\n%s%s", got, exitcode.Invalid, lintOut.String(), lintErr.String())
	}
	if got := run([]string{"platc", "build", "-o", filepath.Join(dir, "out"), path}, &buildOut, &buildErr); got != exitcode.Invalid {
		t.Fatalf("build: exit %d, want %d\n%s%s", got, exitcode.Invalid, buildOut.String(), buildErr.String())
	}
	build := buildErr.String() + buildOut.String()
	i := strings.Index(build, "Error: ")
	if i < 0 {
		t.Fatalf("build printed no error:\n%s", build)
	}
	// The diagnostic build prints, up to its end, is in lint's output.
	want := build[i:]
	want = want[:strings.Index(want, "\n\n1 error")]
	if !strings.Contains(lintOut.String(), want) {
		t.Errorf("lint does not report build's diagnostic\nbuild:\n%s\nlint:\n%s", want, lintOut.String())
	}
	if !strings.Contains(want, "platform.hcl:1:1") || !strings.Contains(want, "node_budget") {
		t.Errorf("the diagnostic lacks the position or the fix:\n%s", want)
	}
}
