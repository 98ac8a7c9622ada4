package lang

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const minimal = "platform \"acme\" {\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\n"

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// summaries returns the diagnostics' "summary: detail" lines.
func summaries(t *testing.T, path string) string {
	t.Helper()
	_, diags := Parse(path)
	var b strings.Builder
	for _, d := range diags {
		if d.Subject == nil || d.Subject.Start.Line == 0 {
			t.Errorf("diagnostic without a location: %s", d.Error())
		}
		b.WriteString(d.Summary + ": " + d.Detail + "\n")
	}
	return b.String()
}

// TestParseSymlinks: a symlinked .hcl file is read when it leads to a
// regular file inside the platform directory, refused otherwise, and
// never skipped.
func TestParseSymlinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFile(t, filepath.Join(dir, "platform.hcl"), minimal)
	writeFile(t, filepath.Join(dir, "apps.txt"), "app \"web\" {}\n")
	if err := os.Symlink("apps.txt", filepath.Join(dir, "apps.hcl")); err != nil {
		t.Fatal(err)
	}
	m, diags := Parse(dir)
	if diags.HasErrors() || len(m.Apps) != 1 {
		t.Fatalf("symlink inside the directory: apps %d, diagnostics %v", len(m.Apps), diags)
	}
	if m.Dir != dir {
		t.Errorf("Module.Dir = %q, want %q", m.Dir, dir)
	}

	writeFile(t, filepath.Join(outside, "secret"), "app \"x\" {}\n")
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "leak.hcl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(dir, "dangling.hcl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.hcl")); err != nil {
		t.Fatal(err)
	}
	got := summaries(t, dir)
	for _, want := range []string{"leak.hcl is a symbolic link to a file outside", "dangling.hcl is a symbolic link that cannot be followed", "zero.hcl is a symbolic link to a character device"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestParseSpecialFiles: devices and FIFOs are refused at once, whether
// named as the platform or found in its directory, and too large files
// are refused without reading them whole.
func TestParseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "platform.hcl"), minimal)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.hcl"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if got := summaries(t, dir); !strings.Contains(got, "pipe.hcl is a named pipe (FIFO), not a regular file") {
		t.Errorf("FIFO in the directory:\n%s", got)
	}
	if got := summaries(t, filepath.Join(dir, "pipe.hcl")); !strings.Contains(got, "named pipe (FIFO)") {
		t.Errorf("FIFO as the platform:\n%s", got)
	}
	if got := summaries(t, "/dev/zero"); !strings.Contains(got, "/dev/zero is a character device, not a regular file") {
		t.Errorf("/dev/zero as the platform:\n%s", got)
	}

	big := t.TempDir()
	f, err := os.Create(filepath.Join(big, "big.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := summaries(t, big); !strings.Contains(got, "larger than 8 MiB") {
		t.Errorf("too large:\n%s", got)
	}
}
