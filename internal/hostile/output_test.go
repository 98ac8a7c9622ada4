package hostile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/write"
	"github.com/platc/platc/lang"
)

// smallOutput is the emitted tree of a one-app platform.
func smallOutput(t *testing.T) []emit.File {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(header + chartApp("", ""))}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	progs, diags := compiler.CompileAll(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	files, err := all.Emit(progs[0])
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestOutputDirectoryLink: a generated/<env> (or generated/) committed as
// a symbolic link made platc build replace the directory it pointed to,
// outside the repository, and delete the files there that start with
// platc's header (issue 21). Now refused, and nothing there changes.
func TestOutputDirectoryLink(t *testing.T) {
	files := smallOutput(t)
	outside := writeDir(t, map[string]string{
		"production/victim.yaml": emit.Header + "someone else's file\n",
		"production/keep.txt":    "mine\n",
	})
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, "generated"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(repo, "generated", "production")
	if err := os.Symlink(filepath.Join(outside, "production"), env); err != nil {
		t.Fatal(err)
	}
	var le *write.LinkError
	if _, err := write.Write(env, files); !errors.As(err, &le) {
		t.Errorf("Write through generated/production -> outside: %v", err)
	}
	if _, err := write.Diff(env, files); !errors.As(err, &le) {
		t.Errorf("Diff through generated/production -> outside: %v", err)
	}
	// generated/ itself a link: the build checks every component below
	// the work tree (cmd/platc TestBuildOutputLinks runs platc build).
	repo2 := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(repo2, "generated")); err != nil {
		t.Fatal(err)
	}
	if err := write.CheckPath(repo2, filepath.Join(repo2, "generated", "production")); !errors.As(err, &le) {
		t.Errorf("CheckPath with generated -> outside: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(outside, "production"))
	if b, err := os.ReadFile(filepath.Join(outside, "production", "victim.yaml")); err != nil || len(entries) != 2 || !strings.HasSuffix(string(b), "someone else's file\n") {
		t.Errorf("the directory outside changed: %v, %d entries", err, len(entries))
	}
}

// TestCheckReportsForeignFiles: build --check said "up to date" while
// argocd/apps/ held a ClusterRoleBinding the auto-synced root app would
// apply, or ansible/ a filter plugin Ansible would load (issue 21).
func TestCheckReportsForeignFiles(t *testing.T) {
	files := smallOutput(t)
	for _, foreign := range []string{"argocd/apps/admin.yaml", "ansible/filter_plugins/evil.py", "workflows/extra.yaml"} {
		t.Run(foreign, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "production")
			if _, err := write.Write(dir, files); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, filepath.FromSlash(foreign))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("kind: ClusterRoleBinding\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			changes, err := write.Diff(dir, files)
			if err != nil || len(changes) != 1 || changes[0] != (write.Change{Path: foreign, Kind: write.Foreign}) {
				t.Errorf("Diff = %v, %v; want %s reported as foreign", changes, err, foreign)
			}
		})
	}
}
