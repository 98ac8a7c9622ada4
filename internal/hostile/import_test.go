package hostile

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/importer"
)

// importCorpus is a benign app-of-apps repository; each case of
// TestImportHostileTree makes one of its files hostile (issue 21).
const importCorpus = "../../testdata/hostile/import"

// Stand-ins for files of the importing user that a hostile repository
// links to: none of their text may reach any output of the import.
const (
	kubeconfig  = "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user: {token: SECRET-KUBECONFIG-TOKEN}\n"
	sshKey      = "-----BEGIN OPENSSH PRIVATE KEY-----\nSECRET-SSH-KEY\n"
	credentials = "[default]\naws_secret_access_key = SECRET-AWS-KEY\n"
)

var secrets = []string{"SECRET-KUBECONFIG-TOKEN", "SECRET-SSH-KEY", "SECRET-AWS-KEY"}

// copyTree copies the corpus into dir/repo and writes the user's files
// beside it, in dir/home.
func copyTree(t *testing.T) (repo, home string) {
	t.Helper()
	dir := t.TempDir()
	repo, home = filepath.Join(dir, "repo"), filepath.Join(dir, "home")
	err := filepath.WalkDir(importCorpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(importCorpus, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]string{"kubeconfig": kubeconfig, "id_ed25519": sshKey, "credentials": credentials} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo, home
}

// replace makes repo/rel a symbolic link to target, or a FIFO when
// target is "fifo".
func replace(t *testing.T, repo, rel, target string) {
	t.Helper()
	p := filepath.Join(repo, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
	if target == "fifo" {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

type imported struct {
	res   *importer.Result
	diags hcl.Diagnostics
	err   error
}

// runImport imports repo, failing the test (not hanging it) when the
// import takes more than 30 seconds: a FIFO used to block it forever.
func runImport(t *testing.T, repo string) imported {
	t.Helper()
	done := make(chan imported, 1)
	go func() {
		res, diags, err := importer.Import([]string{repo}, importer.Options{OutDir: t.TempDir()})
		done <- imported{res, diags, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("import: %v", r.err)
		}
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("the import did not finish in 30 seconds")
	}
	return imported{}
}

// outputs is every byte the import hands back: platform.hcl, adopted
// and hook files, the report, the diagnostics, and the source files kept
// for diagnostic snippets.
func outputs(t *testing.T, r imported) string {
	t.Helper()
	var b strings.Builder
	for _, d := range r.diags {
		b.WriteString(d.Summary + "\n" + d.Detail + "\n")
	}
	if r.res == nil {
		return b.String()
	}
	b.Write(r.res.HCL)
	for _, f := range append(r.res.Adopted, r.res.Hooks...) {
		b.Write(f.Data)
	}
	rep, err := json.Marshal(r.res.Report)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(rep)
	for name, f := range r.res.Files {
		b.WriteString(name + "\n")
		b.Write(f.Bytes)
	}
	return b.String()
}

// TestImportBenignTree: the corpus imports without errors, and what its
// values file and its chart file say reaches platform.hcl, so the cases
// below test a channel that is open.
func TestImportBenignTree(t *testing.T) {
	repo, _ := copyTree(t)
	r := runImport(t, repo)
	if r.diags.HasErrors() || r.res == nil {
		t.Fatalf("benign import: %v", r.diags)
	}
	for _, m := range []string{"benign-values-marker", "benign-files-marker"} {
		if !strings.Contains(string(r.res.HCL), m) {
			t.Errorf("platform.hcl lacks %q:\n%s", m, r.res.HCL)
		}
	}
}

// TestImportHostileTree: a repository handed to platc import cannot make
// it read, and copy into its output or diagnostics, a file outside the
// repository, nor hang it or exhaust its memory with a device or a FIFO
// (issue 21). Each case is refused with a located error.
func TestImportHostileTree(t *testing.T) {
	for _, c := range []struct {
		name string
		// make turns the benign copy hostile; home holds the user's files.
		make func(t *testing.T, repo, home string)
		want string // the error's summary
		at   string // the file the error points at, relative to repo
	}{
		{"valueFiles linked to a kubeconfig", func(t *testing.T, repo, home string) {
			replace(t, repo, "charts/stack/values-prod.yaml", filepath.Join(home, "kubeconfig"))
		}, "Values file refused", "apps/stack.yaml"},
		{"valueFiles through a directory linked out", func(t *testing.T, repo, home string) {
			replace(t, repo, "charts/stack/env", home)
			writeFile(t, filepath.Join(repo, "apps/stack.yaml"), strings.Replace(mustRead(t, filepath.Join(repo, "apps/stack.yaml")), "values-prod.yaml", "env/kubeconfig", 1))
		}, "Values file refused", "apps/stack.yaml"},
		{"valueFiles linked to the zero device", func(t *testing.T, repo, home string) {
			replace(t, repo, "charts/stack/values-prod.yaml", "/dev/zero")
		}, "Values file refused", "apps/stack.yaml"},
		{"valueFiles a FIFO", func(t *testing.T, repo, home string) {
			replace(t, repo, "charts/stack/values-prod.yaml", "fifo")
		}, "Values file refused", "apps/stack.yaml"},
		{".Files.Get of a file linked to an SSH key", func(t *testing.T, repo, home string) {
			replace(t, repo, "charts/stack/files/extra.txt", filepath.Join(home, "id_ed25519"))
		}, "Chart file refused", "charts/stack/files/extra.txt"},
		{".helmignore linked to an SSH key", func(t *testing.T, repo, home string) {
			replace(t, repo, "charts/stack/.helmignore", filepath.Join(home, "id_ed25519"))
		}, "Chart file refused", "charts/stack/.helmignore"},
		{"stray Chart.yaml linked to the zero device", func(t *testing.T, repo, home string) {
			replace(t, repo, "stray/Chart.yaml", "/dev/zero")
		}, "Chart file refused", "stray/Chart.yaml"},
		{"stray Chart.yaml a FIFO", func(t *testing.T, repo, home string) {
			replace(t, repo, "stray/Chart.yaml", "fifo")
		}, "Chart file refused", "stray/Chart.yaml"},
		{"kustomization entry climbing out", func(t *testing.T, repo, home string) {
			// Outside a Git checkout, with the working directory above
			// the repository: the case that used to read ~/.aws.
			t.Chdir(filepath.Dir(repo))
			writeFile(t, filepath.Join(repo, "workloads/api/kustomization.yaml"), "resources:\n  - deployment.yaml\n  - ../../../home/credentials\n")
		}, "Kustomization entry outside the imported tree", "workloads/api/kustomization.yaml"},
		{"kustomization entry linked to AWS credentials", func(t *testing.T, repo, home string) {
			t.Chdir(filepath.Dir(repo))
			replace(t, repo, "workloads/api/deployment.yaml", filepath.Join(home, "credentials"))
		}, "Kustomization entry outside the imported tree", "workloads/api/kustomization.yaml"},
		{"kustomization entry a directory outside", func(t *testing.T, repo, home string) {
			t.Chdir(filepath.Dir(repo))
			writeFile(t, filepath.Join(home, "kustomization.yaml"), "resources:\n  - credentials\n")
			writeFile(t, filepath.Join(repo, "workloads/api/kustomization.yaml"), "resources:\n  - deployment.yaml\n  - ../../../home\n")
		}, "Kustomization entry outside the imported tree", "workloads/api/kustomization.yaml"},
		{"kustomization.yaml linked to AWS credentials", func(t *testing.T, repo, home string) {
			replace(t, repo, "workloads/api/kustomization.yaml", filepath.Join(home, "credentials"))
		}, "Cannot read kustomization", "charts/stack/templates/web.yaml"},
		{"kustomization.yaml a FIFO", func(t *testing.T, repo, home string) {
			replace(t, repo, "workloads/api/kustomization.yaml", "fifo")
		}, "Cannot read kustomization", "charts/stack/templates/web.yaml"},
		{"source path a directory linked outside", func(t *testing.T, repo, home string) {
			writeFile(t, filepath.Join(home, "leak.yaml"), credentials)
			replace(t, repo, "workloads/web", home)
		}, "Source path outside the imported tree", "charts/stack/templates/web.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo, home := copyTree(t)
			c.make(t, repo, home)
			start := time.Now()
			r := runImport(t, repo)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the import took %v", d)
			}
			out := outputs(t, r)
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("%s reached the import's output", s)
				}
			}
			if r.res != nil {
				for name := range r.res.Files {
					if !strings.HasPrefix(name, repo+string(filepath.Separator)) {
						t.Errorf("a file outside the tree was kept for snippets: %s", name)
					}
				}
			}
			found := false
			for _, d := range r.diags {
				if d.Severity != hcl.DiagError || d.Summary != c.want {
					continue
				}
				found = true
				if d.Subject == nil || d.Subject.Start.Line == 0 || d.Subject.Start.Column == 0 {
					t.Errorf("%q has no line and column", d.Summary)
				} else if want := filepath.Join(repo, filepath.FromSlash(c.at)); d.Subject.Filename != want {
					t.Errorf("%q is at %s, want %s", d.Summary, d.Subject.Filename, want)
				}
			}
			if !found {
				t.Errorf("no %q error; diagnostics: %v", c.want, r.diags)
			}
		})
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
