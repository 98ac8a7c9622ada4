package hostile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/write"
	"github.com/platc/platc/health"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
)

const header = `platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}
environment "production" {
  domain = "example.com"
}
`

// chartApp is an app "web" with a chart source and extra lines.
func chartApp(extra, helm string) string {
	return `app "web" {
  namespace = "web"
  ` + extra + `
  source {
    chart    = "web"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    ` + helm + `
  }
}
`
}

// compileDir parses and compiles the platform in dir, every environment.
func compileDir(dir string) hcl.Diagnostics {
	m, diags := lang.Parse(dir)
	if diags.HasErrors() {
		return diags
	}
	_, diags = compiler.CompileAll(m, compiler.Options{})
	return diags
}

func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// refusedWith checks diags hold an error with summary, located.
func refusedWith(t *testing.T, diags hcl.Diagnostics, summary string) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Summary == summary {
			if d.Subject == nil || d.Subject.Start.Line == 0 || d.Subject.Start.Column == 0 {
				t.Errorf("%q has no file:line:column", summary)
			}
			return
		}
	}
	t.Errorf("diagnostics %v, want %q", diags, summary)
}

// TestCrashesAndOverflows: the audit's crashes, hangs and overflows, each
// now a located diagnostic (issue 13).
func TestCrashesAndOverflows(t *testing.T) {
	deep := func(open, close string) string {
		return header + "environment \"x\" {\n  v = " + strings.Repeat(open, 100_000) + "1" + strings.Repeat(close, 100_000) + "\n}\n"
	}
	list := "[" + strings.Repeat("1, ", 300) + "1]"
	for _, c := range []struct {
		name, src, want string
	}{
		{"100,000 nested parentheses", deep("(", ")"), "Expression nested too deeply"},
		{"100,000 nested templates", deep(`"${`, `}"`), "Expression nested too deeply"},
		{"100,000 nested lists", deep("[", "]"), "Expression nested too deeply"},
		{"100,000 negations", header + "environment \"x\" {\n  v = " + strings.Repeat("!", 100_000) + "true\n}\n", "Expression nested too deeply"},
		{"retry limit 2147483647", header + chartApp("retry {\n    limit = 2147483647\n  }", ""), "Invalid number"},
		{"sync 1000000h", header + chartApp("timeouts {\n    sync = \"1000000h\"\n  }", ""), "Invalid duration"},
		{"sync 1ns", header + chartApp("timeouts {\n    sync = \"1ns\"\n  }", ""), "Invalid duration"},
		{"events port 70000", header + "events {\n  port = 70000\n}\n", "Invalid number"},
		{"values 1e400", header + chartApp("", "helm {\n      values = { v = 1e400 }\n    }"), "Number out of range"},
		{"values 9007199254740993", header + chartApp("", "helm {\n      values = { v = 9007199254740993 }\n    }"), "Number out of range"},
		{"nested for expressions", header + chartApp("", "helm {\n      values = { v = [for a in "+list+" : [for b in "+list+" : [for c in "+list+" : 1]]] }\n    }"), "Value too large"},
		{"format width", header + chartApp("", "helm {\n      values = { v = format(\"%999999999s\", \"x\") }\n    }"), "Invalid function argument"},
		{"git.path /etc", strings.Replace(header, `revision = "v1.0.0"`, `revision = "v1.0.0"
    path     = "/etc"`, 1), "Invalid path"},
		{"git.path climbing out", strings.Replace(header, `revision = "v1.0.0"`, `revision = "v1.0.0"
    path     = "gen/../../escape"`, 1), "Invalid path"},
		{"test object outside", header + "health \"example.com/W\" {\n  healthy = true\n  test \"t\" {\n    object = \"../../../../dev/zero\"\n    want   = \"Healthy\"\n  }\n}\n", "Invalid path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusedWith(t, compileDir(writeDir(t, map[string]string{"platform.hcl": c.src})), c.want)
		})
	}
}

// TestManyUnknownReferences: 20,000 unknown references (each one edit
// away from a real app, but the last) are all reported; "did you mean"
// used to make this never finish. The apps and root are as many as a
// platform may have (compiler.MaxApps).
func TestManyUnknownReferences(t *testing.T) {
	var b strings.Builder
	b.WriteString(header)
	for i := range compiler.MaxApps - 1 {
		fmt.Fprintf(&b, "app \"app-%05d\" {}\n", i)
	}
	b.WriteString("app \"root\" {\n  depends_on = [")
	for i := range 20_000 {
		fmt.Fprintf(&b, "app.app-%05dx, ", i)
	}
	b.WriteString("]\n}\n")
	diags := compileDir(writeDir(t, map[string]string{"platform.hcl": b.String()}))
	if n := len(diags); n != 20_000 {
		t.Errorf("%d diagnostics, want one per unknown reference", n)
	}
}

// TestSpecialFiles: devices, FIFOs and symlinks wherever platc reads a
// path, each refused or followed, never hanging, exhausting memory or
// leaking a file outside the platform.
func TestSpecialFiles(t *testing.T) {
	outside := writeDir(t, map[string]string{"secret.hcl": "app \"leak\" {}\n"})
	dir := writeDir(t, map[string]string{
		"platform.hcl": header + chartApp(`hook "m" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "zero.yaml"
  }`, "") + "health \"example.com/W\" {\n  healthy = true\n  test \"fifo\" {\n    object = \"fifo.yaml\"\n    want   = \"Healthy\"\n  }\n  test \"zero\" {\n    object = \"zero.yaml\"\n    want   = \"Healthy\"\n  }\n}\n",
		"apps.txt": "app \"linked\" {\n  namespace = \"linked\"\n}\n",
	})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A symlinked .hcl inside the directory is followed: its app exists.
	must(os.Symlink("apps.txt", filepath.Join(dir, "apps.hcl")))
	m, diags := lang.Parse(dir)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	progs, diags := compiler.CompileAll(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if progs[0].App("linked") == nil {
		t.Error("the symlinked .hcl file was skipped")
	}
	// The hook manifest is /dev/zero: lint reports it, bounded.
	found, err := lint.Run(lint.Config{Module: m, Programs: progs, Rules: []*lint.Rule{rules.HookManifestMismatch}})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.Contains(found[0].Summary, "cannot be read: "+filepath.Join(dir, "zero.yaml")+" leads outside") {
		t.Errorf("hook manifest /dev/zero: %v", found)
	}
	// Test objects, read as platc test reads them.
	tests, _ := health.Tests(m.Health[0])
	for _, tc := range tests {
		rel, _ := filepath.Rel(m.Dir, filepath.FromSlash(tc.Object))
		_, err := safefile.ReadInside(m.Dir, filepath.ToSlash(rel), health.MaxObjectSize)
		var nr *safefile.NotRegularError
		var oe *safefile.OutsideError
		if !errors.As(err, &nr) && !errors.As(err, &oe) {
			t.Errorf("test object %s: %v, want it refused", tc.Object, err)
		}
	}
	// A symlinked .hcl leading outside, or to a device, or a FIFO named
	// .hcl: refused with a located diagnostic, nothing read.
	for name, make := range map[string]func(string) error{
		"leak.hcl": func(p string) error { return os.Symlink(filepath.Join(outside, "secret.hcl"), p) },
		"zero.hcl": func(p string) error { return os.Symlink("/dev/zero", p) },
		"pipe.hcl": func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		d := writeDir(t, map[string]string{"platform.hcl": header})
		must(make(filepath.Join(d, name)))
		_, diags := lang.Parse(d)
		refusedWith(t, diags, "Cannot read platform file")
	}
}

// TestConcurrentBuilds: builds of two platforms into one output
// directory at the same time. Each succeeds or is refused as busy; the
// directory then holds one build's output, whole, and the user's file.
func TestConcurrentBuilds(t *testing.T) {
	outputs := make([][]emit.File, 2)
	for i := range outputs {
		src := header
		for j := range 40 {
			src += fmt.Sprintf("app \"app%d-%d\" {\n  namespace = \"n\"\n  source {\n    path = \"apps/a\"\n  }\n}\n", i, j)
		}
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		progs, diags := compiler.CompileAll(m, compiler.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, e := range all.Emitters() {
			fs, err := e.Emit(progs[0])
			if err != nil {
				t.Fatal(err)
			}
			outputs[i] = append(outputs[i], fs...)
		}
		emit.Sort(outputs[i])
	}
	for trial := range 10 {
		dir := filepath.Join(t.TempDir(), "production")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for k := range errs {
			wg.Go(func() { _, errs[k] = write.Write(dir, outputs[k%2]) })
		}
		wg.Wait()
		for _, err := range errs {
			var busy *write.BusyError
			if err != nil && !errors.As(err, &busy) {
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || string(b) != "mine\n" {
			t.Fatalf("trial %d: the user's file is gone", trial)
		}
		which := -1
		for i := range outputs {
			if _, err := os.Stat(filepath.Join(dir, "argocd", "apps", fmt.Sprintf("app%d-0.yaml", i))); err == nil {
				which = i
			}
		}
		if which < 0 {
			t.Fatalf("trial %d: neither output is there", trial)
		}
		for _, f := range outputs[which] {
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
			if err != nil || string(b) != string(f.Data) {
				t.Fatalf("trial %d: %s is not build %d's", trial, f.Path, which)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".production.platc*")); len(m) != 0 {
			t.Fatalf("trial %d: leftovers %v", trial, m)
		}
	}
}
