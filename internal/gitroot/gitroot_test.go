package gitroot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	deep := filepath.Join(repo, "platform", "prod")
	linked := filepath.Join(top, "linked")
	for _, d := range []string{filepath.Join(repo, ".git"), deep, linked} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A linked work tree has a .git file, not a directory.
	if err := os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: ../repo/.git/worktrees/linked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(deep, "platform.hcl")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(top, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, root string
		ok         bool
	}{
		{deep, repo, true},
		{file, repo, true},
		{repo, repo, true},
		{linked, linked, true},
		{outside, outside, false},
	} {
		root, ok := Find(c.path)
		// The temporary directory may itself be inside a work tree; outside
		// one, the answer is the directory itself.
		if c.ok && (root != c.root || !ok) || !c.ok && !ok && root != c.root {
			t.Errorf("Find(%s) = %s, %v; want %s, %v", c.path, root, ok, c.root, c.ok)
		}
	}
}
