package lint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/manifest"
)

// readVia runs a rule that reads path through Pass.ReadFile.
func readVia(t *testing.T, cfg Config, path string) ([]byte, error) {
	t.Helper()
	var b []byte
	var rerr error
	r := &Rule{Name: "reads", Run: func(p *Pass) error { b, rerr = p.ReadFile(path); return nil }}
	if _, err := runRule(r, cfg, NewDecls(cfg.Module), nil, nil); err != nil {
		t.Fatal(err)
	}
	return b, rerr
}

// TestPassReadFileFS: with Config.Files, rules read the platform
// directory from it, with the same refusals as on disk.
func TestPassReadFileFS(t *testing.T) {
	dir := filepath.Join("out", "plat")
	files := fstest.MapFS{
		"hooks/a.yaml": {Data: []byte("kind: Job\n")},
		"big.yaml":     {Data: []byte(strings.Repeat("x", manifest.MaxFileSize+1))},
		"hooks/dir":    {Mode: fs.ModeDir},
	}
	cfg := Config{Module: &lang.Module{Dir: dir}, Files: files}
	b, err := readVia(t, cfg, filepath.Join(dir, "hooks", "a.yaml"))
	if err != nil || string(b) != "kind: Job\n" {
		t.Fatalf("read = %q, %v", b, err)
	}
	var outside *safefile.OutsideError
	var large *safefile.TooLargeError
	var notReg *safefile.NotRegularError
	for path, ok := range map[string]func(error) bool{
		filepath.Join(dir, "hooks", "none.yaml"): func(err error) bool { return errors.Is(err, fs.ErrNotExist) },
		filepath.Join(dir, "..", "secret.yaml"):  func(err error) bool { return errors.As(err, &outside) },
		filepath.Join("/etc", "passwd"):          func(err error) bool { return errors.As(err, &outside) },
		filepath.Join(dir, "big.yaml"):           func(err error) bool { return errors.As(err, &large) && large.Path == filepath.Join(dir, "big.yaml") },
		filepath.Join(dir, "hooks", "dir"):       func(err error) bool { return errors.As(err, &notReg) },
	} {
		if _, err := readVia(t, cfg, path); !ok(err) {
			t.Errorf("ReadFile(%s) error = %v", path, err)
		}
	}
}

// TestPassReadFileDisk: without Config.Files, rules read the disk, and
// a symbolic link out of the platform directory is refused.
func TestPassReadFileDisk(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "plat")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "secret.yaml"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Module: &lang.Module{Dir: dir}}
	if b, err := readVia(t, cfg, filepath.Join(dir, "a.yaml")); err != nil || string(b) != "a" {
		t.Fatalf("read = %q, %v", b, err)
	}
	var outside *safefile.OutsideError
	if _, err := readVia(t, cfg, filepath.Join(dir, "link.yaml")); !errors.As(err, &outside) || !outside.Link {
		t.Fatalf("link out of the platform: error = %v", err)
	}
}
