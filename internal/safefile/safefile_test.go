package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadBounds(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, "12345")
	if b, err := Read(p, 5); err != nil || string(b) != "12345" {
		t.Errorf("Read at the limit = %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := Read(p, 4); !errors.As(err, &tl) {
		t.Errorf("Read over the limit: err = %v, want TooLargeError", err)
	}
}

// TestReadSpecialFiles: devices, FIFOs and directories are refused, and
// a FIFO nobody writes to does not block.
func TestReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for path, what := range map[string]string{
		"/dev/zero": "a character device",
		"/dev/null": "a character device",
		fifo:        "a named pipe (FIFO)",
		dir:         "a directory",
	} {
		_, err := Read(path, 1<<20)
		var nr *NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), what) {
			t.Errorf("Read(%s) = %v, want %q", path, err, what)
		}
	}
}

// TestReadProc: a /proc file says its size is 0 and may be endless; the
// limit still holds.
func TestReadProc(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	var tl *TooLargeError
	if _, err := Read("/proc/self/status", 16); !errors.As(err, &tl) {
		t.Errorf("Read(/proc/self/status, 16) = %v, want TooLargeError", err)
	}
}

func TestReadInside(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(root, "a", "in.yaml"), "in")
	write(t, filepath.Join(outside, "secret"), "secret")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak.yaml")))
	must(os.Symlink(outside, filepath.Join(root, "dir")))
	must(os.Symlink("a/in.yaml", filepath.Join(root, "alias.yaml")))

	for _, c := range []struct {
		rel  string
		want string // content, or "outside" / "link"
	}{
		{"a/in.yaml", "in"},
		{"alias.yaml", "in"},
		{"a/../a/in.yaml", "in"},
		{"../x", "outside"},
		{"a/../../x", "outside"},
		{"/etc/passwd", "outside"},
		{"leak.yaml", "link"},
		{"dir/secret", "link"},
	} {
		b, err := ReadInside(root, c.rel, 1<<10)
		var oe *OutsideError
		switch c.want {
		case "outside", "link":
			if !errors.As(err, &oe) || oe.Link != (c.want == "link") {
				t.Errorf("ReadInside(%q) = %q, %v; want an OutsideError (link %v)", c.rel, b, err, c.want == "link")
			}
		default:
			if err != nil || string(b) != c.want {
				t.Errorf("ReadInside(%q) = %q, %v; want %q", c.rel, b, err, c.want)
			}
		}
	}
}

// TestTree: a Tree reads regular files inside its roots, follows links
// that stay inside, refuses links out, special files and files over its
// bounds, and stops at its total.
func TestTree(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(root, "a", "in.yaml"), "12345")
	write(t, filepath.Join(root, "b.yaml"), "123456789")
	write(t, filepath.Join(outside, "secret"), "secret")
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "leak.yaml")))
	must(os.Symlink(outside, filepath.Join(root, "dir")))
	must(os.Symlink("a/in.yaml", filepath.Join(root, "alias.yaml")))
	must(os.Symlink("/dev/zero", filepath.Join(root, "zero.yaml")))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.yaml"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tr := NewTree(8, 12)
	must(tr.AddRoot(root))
	var oe *OutsideError
	var nr *NotRegularError
	var tl *TooLargeError
	var te *TotalError
	for _, c := range []struct {
		path string
		ok   func(error) bool
	}{
		{filepath.Join(root, "b.yaml"), func(err error) bool { return errors.As(err, &tl) }},
		{filepath.Join(root, "a", "in.yaml"), func(err error) bool { return err == nil }},
		{filepath.Join(root, "alias.yaml"), func(err error) bool { return err == nil }},
		{filepath.Join(root, "leak.yaml"), func(err error) bool { return errors.As(err, &oe) && oe.Link }},
		{filepath.Join(root, "dir", "secret"), func(err error) bool { return errors.As(err, &oe) && oe.Link }},
		{filepath.Join(root, "zero.yaml"), func(err error) bool { return errors.As(err, &oe) && oe.Link }},
		{filepath.Join(root, "..", filepath.Base(outside), "secret"), func(err error) bool { return errors.As(err, &oe) && !oe.Link }},
		{filepath.Join(root, "fifo.yaml"), func(err error) bool { return errors.As(err, &nr) }},
		// 10 bytes read so far: 5 more would pass 12.
		{filepath.Join(root, "a", "in.yaml"), func(err error) bool { return errors.As(err, &te) }},
	} {
		_, err := tr.Read(c.path)
		if !c.ok(err) || (err != nil && !Refused(err)) {
			t.Errorf("Read(%s) = %v", c.path, err)
		}
	}
	if !tr.Contains(filepath.Join(root, "a")) || tr.Contains(filepath.Join(root, "dir")) || tr.Contains(outside) {
		t.Error("Contains disagrees with Read")
	}
}
