package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/internal/exitcode"
)

func TestBuildExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string { return writeFile(t, dir, name, src) }
	good := write("good.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
environment "production" {}
app "db" {}
app "web" { depends_on = [app.db] }
`)
	cyclic := write("cyclic.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
app "a" { depends_on = [app.b] }
app "b" { depends_on = [app.a] }
`)
	out := filepath.Join(dir, "out")
	conflict := filepath.Join(dir, "conflict")
	if err := os.MkdirAll(filepath.Join(conflict, "production", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("conflict/production/workflows/rbac.yaml", "kind: Mine\n")
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"check before any build", []string{"build", "--check", "-o", out, good}, exitcode.Failure},
		{"build", []string{"build", "-o", out, good}, exitcode.OK},
		{"check after build", []string{"build", "--check", "-o", out, good}, exitcode.OK},
		{"rebuild", []string{"build", "-o", out, good}, exitcode.OK},
		{"cycle", []string{"build", "-o", out, cyclic}, exitcode.Invalid},
		{"unknown env", []string{"build", "--env", "prod", "-o", out, good}, exitcode.Invalid},
		{"conflict", []string{"build", "-o", conflict, good}, exitcode.Failure},
		{"flag after path", []string{"build", good, "--check", "-o", out}, exitcode.OK},
		{"two paths", []string{"build", good, cyclic}, exitcode.Invalid},
		{"unknown flag", []string{"build", "--force", good}, exitcode.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"platc"}, tc.args...), &stdout, &stderr); got != tc.want {
				t.Errorf("platc %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, got, tc.want, stdout.String(), stderr.String())
			}
		})
	}
}

// tree reads every file under root.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// splitPlatform spreads the top-level blocks of src over files in dir,
// choosing file names and which blocks go together with r, so that the
// parser meets the declarations in a different order each time.
func splitPlatform(t *testing.T, src []byte, dir string, r *rand.Rand) {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(src, "platform.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	blocks := f.Body.(*hclsyntax.Body).Blocks
	nfiles := 2 + r.IntN(5)
	parts := make([][]byte, nfiles)
	for _, i := range r.Perm(len(blocks)) {
		rng := blocks[i].Range()
		k := r.IntN(nfiles)
		parts[k] = append(parts[k], src[rng.Start.Byte:rng.End.Byte]...)
		parts[k] = append(parts[k], '\n', '\n')
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, data := range parts {
		name := fmt.Sprintf("%c%d.hcl", 'a'+r.IntN(26), k)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuildDeterministic builds the example platform several times: as one
// file, and split over files in different orders, with GOMAXPROCS 1 and
// the machine's, and requires byte-identical trees (INV-3).
func TestBuildDeterministic(t *testing.T) {
	src, err := os.ReadFile("../../examples/platform.hcl")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	build := func(platform, out string, procs int) map[string]string {
		t.Helper()
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var stdout, stderr bytes.Buffer
		if code := run([]string{"platc", "build", "-o", out, platform}, &stdout, &stderr); code != exitcode.OK {
			t.Fatalf("build %s: exit %d\n%s", platform, code, stderr.String())
		}
		return tree(t, out)
	}
	// The hook manifest the example declares goes beside every copy:
	// build refuses a hook whose manifest is missing, as lint does.
	hook, err := os.ReadFile("../../examples/apps/harbor/migrate-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withHook := func(dir string) {
		t.Helper()
		writeFile(t, dir, "apps/harbor/migrate-job.yaml", string(hook))
	}
	whole := filepath.Join(root, "whole.hcl")
	if err := os.WriteFile(whole, src, 0o644); err != nil {
		t.Fatal(err)
	}
	withHook(root)
	want := build(whole, filepath.Join(root, "out-whole"), 1)
	if len(want) == 0 {
		t.Fatal("nothing generated")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 4 {
		dir := filepath.Join(root, fmt.Sprintf("split-%d", i))
		splitPlatform(t, src, dir, r)
		withHook(dir)
		procs := max(runtime.NumCPU(), 2)
		if i%2 == 0 {
			procs = 1
		}
		got := build(dir, filepath.Join(root, fmt.Sprintf("out-%d", i)), procs)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("split %d (GOMAXPROCS=%d) differs from the single-file build:\n%s", i, procs, diff)
		}
	}
}

// TestBuildOutputLinks: a generated/<env> committed as a symbolic link,
// or a generated/ that is one, is refused with a diagnostic at the
// environment, and the directory it points to is left alone (issue 21).
func TestBuildOutputLinks(t *testing.T) {
	for _, link := range []string{"generated/production", "generated"} {
		t.Run(link, func(t *testing.T) {
			repo := t.TempDir()
			if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			platform := writeFile(t, repo, "platform.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
environment "production" {}
app "web" {
  namespace = "web"
  source { path = "apps/web" }
}
`)
			outside := t.TempDir()
			victim := writeFile(t, outside, "production/victim.yaml", "# Code generated by platc. DO NOT EDIT.\nmine\n")
			target := outside
			if link == "generated/production" {
				target = filepath.Join(outside, "production")
				if err := os.Mkdir(filepath.Join(repo, "generated"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, filepath.Join(repo, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"build", platform}, {"build", "--check", platform}} {
				var stdout, stderr bytes.Buffer
				if got := run(append([]string{"platc"}, args...), &stdout, &stderr); got != exitcode.Failure {
					t.Errorf("platc %v: exit %d, want %d\n%s", args, got, exitcode.Failure, stderr.String())
				}
				for _, want := range []string{"Output directory is a symbolic link", "platform.hcl:4:13", "Replace the link with a real directory"} {
					if !bytes.Contains(stderr.Bytes(), []byte(want)) {
						t.Errorf("platc %v: stderr lacks %q:\n%s", args, want, stderr.String())
					}
				}
			}
			entries, _ := os.ReadDir(filepath.Join(outside, "production"))
			if b, err := os.ReadFile(victim); err != nil || len(entries) != 1 || !bytes.HasSuffix(b, []byte("mine\n")) {
				t.Errorf("the link's target changed: %v, %d entries", err, len(entries))
			}
		})
	}
}

// TestBuildCheckForeign: build --check fails on files in the output that
// platc did not write, such as a ClusterRoleBinding the root app would
// apply or an Ansible filter plugin, and names each one (issue 21).
func TestBuildCheckForeign(t *testing.T) {
	dir := t.TempDir()
	platform := writeFile(t, dir, "platform.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
environment "production" {}
app "web" {
  namespace = "web"
  source { path = "apps/web" }
}
`)
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"platc", "build", "-o", out, platform}, &stdout, &stderr); got != exitcode.OK {
		t.Fatalf("build: exit %d\n%s", got, stderr.String())
	}
	crb := writeFile(t, out, "production/argocd/apps/crb.yaml", "kind: ClusterRoleBinding\n")
	plugin := writeFile(t, out, "production/ansible/filter_plugins/evil.py", "import os\n")
	stdout.Reset()
	stderr.Reset()
	if got := run([]string{"platc", "build", "--check", "-o", out, platform}, &stdout, &stderr); got != exitcode.Failure {
		t.Errorf("check: exit %d, want %d\n%s%s", got, exitcode.Failure, stdout.String(), stderr.String())
	}
	for _, want := range []string{crb + ": not generated by platc", plugin + ": not generated by platc"} {
		if !bytes.Contains(stdout.Bytes(), []byte(want)) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if !bytes.Contains(stderr.Bytes(), []byte("2 files that platc did not generate")) || bytes.Contains(stderr.Bytes(), []byte("stale")) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// In a clone of the platform repository (a real git init with the
// platform's URL as its remote), platc build refuses a Git path that
// does not exist, at file:line:col with the nearest existing directory,
// and builds once the directory is there. A copy outside any clone is
// not checked.
func TestBuildChecksGitPaths(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "remote", "add", "origin", "git@git.example.com:platform.git"}} {
		if out, err := exec.Command(gitBin, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	src := `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
app "web" {
  namespace = "web"
  source { path = "apps/wbe" }
}
`
	writeFile(t, repo, "platform/platform.hcl", src)
	writeFile(t, repo, "apps/web/deployment.yaml", "kind: Deployment\n")
	var stdout, stderr bytes.Buffer
	code := run([]string{"platc", "build", "-o", filepath.Join(t.TempDir(), "out"), filepath.Join(repo, "platform")}, &stdout, &stderr)
	if code != exitcode.Invalid {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitcode.Invalid, stdout.String(), stderr.String())
	}
	for _, want := range []string{"Git path not found", "platform.hcl:6:19", `Did you mean "apps/web"?`} {
		if !strings.Contains(stdout.String()+stderr.String(), want) {
			t.Errorf("output lacks %q:\n%s%s", want, stdout.String(), stderr.String())
		}
	}

	copyDir := t.TempDir()
	writeFile(t, copyDir, "platform.hcl", src)
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"platc", "build", "-o", filepath.Join(t.TempDir(), "out"), copyDir}, &stdout, &stderr); code != exitcode.OK {
		t.Errorf("outside a clone: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}

	writeFile(t, repo, "platform/platform.hcl", strings.Replace(src, "apps/wbe", "apps/web", 1))
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"platc", "build", "-o", filepath.Join(t.TempDir(), "out"), filepath.Join(repo, "platform")}, &stdout, &stderr); code != exitcode.OK {
		t.Errorf("with the path fixed: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}
