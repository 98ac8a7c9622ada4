package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/lang"
)

// argocdSource is Argo CD's module source, as .ci/e2e/build.sh leaves it
// beside the binaries; empty when it is not there.
func argocdSource() string {
	bin := os.Getenv("PLATC_E2E_BIN")
	if bin == "" {
		return ""
	}
	dir := filepath.Join(bin, "..", "src", "argo-cd")
	if _, err := os.Stat(filepath.Join(dir, "resource_customizations")); err != nil {
		return ""
	}
	return dir
}

// The operator's samples: platc's library and Argo CD's fixtures before
// the platform's own tests. The shop declares its own rule and tests for
// example.com/Database, a kind neither platc nor Argo CD knows, so its
// samples come from the platform; a kind with a built-in rule takes the
// built-in sample even when the platform tests it too.
func TestSampleOrder(t *testing.T) {
	load := func(path string) *samples {
		m, diags := lang.Parse(path)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p, diags := compiler.Compile(m, compiler.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return loadSamples(p, m, argocdSource())
	}
	shopSamples := load(shop)
	if got := shopSamples.source["example.com/Database"]; got["Healthy"] != sourcePlatform || got["Degraded"] != sourcePlatform {
		t.Errorf("example.com/Database's samples from %v, want the platform's tests", got)
	}

	// A platform that tests a built-in kind with its own samples.
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(shop, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, []byte(`
app "backups" {
  namespace        = "backups"
  custom_resources = ["velero.io/BackupStorageLocation"]
  source {
    path = "apps/backups"
  }
}
health "velero.io/BackupStorageLocation" {
  healthy = true
  test "mine" {
    object = "testdata/bsl.yaml"
    want   = "Healthy"
  }
}
`)...)
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"platform.hcl":                   string(src),
		"testdata/bsl.yaml":              "apiVersion: velero.io/v1\nkind: BackupStorageLocation\nstatus:\n  mine: true\n",
		"testdata/database-running.yaml": mustRead(t, filepath.Join(shop, "testdata", "database-running.yaml")),
		"testdata/database-failed.yaml":  mustRead(t, filepath.Join(shop, "testdata", "database-failed.yaml")),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := load(dir)
	if got := s.source["velero.io/BackupStorageLocation"]["Healthy"]; got != sourceBuiltin {
		t.Errorf("velero.io/BackupStorageLocation's Healthy sample from %q, want %q", got, sourceBuiltin)
	}
	if s.healthy["velero.io/BackupStorageLocation"].status["mine"] != nil {
		t.Error("the platform's own BackupStorageLocation sample was taken before platc's")
	}
	for _, l := range s.Sources() {
		t.Log(l)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
