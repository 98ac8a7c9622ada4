package gitroot

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// Remotes reads a real repository's remotes, from its own work tree and
// from a linked one (whose .git file leads to the shared config), and
// none where there is no repository or no readable .git.
func TestRemotes(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	linked := filepath.Join(top, "linked")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+top,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", repo)
	run("-C", repo, "remote", "add", "origin", "https://git.example.com/platform.git")
	run("-C", repo, "remote", "add", "mirror", "git@git.example.com:platform.git")
	run("-C", repo, "commit", "-q", "--allow-empty", "-m", "init")
	run("-C", repo, "worktree", "add", "-q", linked)
	want := []string{"https://git.example.com/platform.git", "git@git.example.com:platform.git"}
	for _, dir := range []string{repo, linked} {
		root, ok := Find(filepath.Join(dir, "."))
		if !ok {
			t.Fatalf("Find(%s) found no work tree", dir)
		}
		if got := Remotes(root); !slices.Equal(got, want) {
			t.Errorf("Remotes(%s) = %q, want %q", root, got, want)
		}
	}
	if got := Remotes(top); got != nil {
		t.Errorf("Remotes outside a repository = %q", got)
	}
	// A .git file that points nowhere readable gives no remotes.
	broken := filepath.Join(top, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, ".git"), []byte("gitdir: ../nowhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Remotes(broken); got != nil {
		t.Errorf("Remotes of a broken .git file = %q", got)
	}
}
