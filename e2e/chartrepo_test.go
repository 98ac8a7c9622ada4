package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// publishTestCharts serves two charts, one in two versions, the older
// published last (the index must still list the newest first).
func publishTestCharts(t *testing.T, s *sources, repoURL string) {
	t.Helper()
	cm := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	for _, c := range []struct{ name, version string }{{"alpha", "1.10.0"}, {"beta", "0.1.0"}, {"alpha", "1.9.0"}} {
		if err := s.publishChart(repoURL, c.name, c.version, map[string][]byte{"cm.yaml": cm}); err != nil {
			t.Fatal(err)
		}
	}
}

// The served chart archives and index.yaml are byte-identical from run
// to run (an archive's digest is in the index, and Argo CD's cache keys
// on it).
func TestChartRepositoryDeterministic(t *testing.T) {
	const repoURL = "https://charts.example.test/stable"
	a, b := newSources(t.TempDir()), newSources(t.TempDir())
	publishTestCharts(t, a, repoURL)
	publishTestCharts(t, b, repoURL)
	ia, ok := a.chartIndex(repoURL)
	if !ok {
		t.Fatal("no index")
	}
	ib, _ := b.chartIndex(repoURL)
	if !bytes.Equal(ia, ib) {
		t.Errorf("two indexes of the same charts differ:\n%s\n---\n%s", ia, ib)
	}
	for _, f := range []string{"alpha-1.10.0.tgz", "alpha-1.9.0.tgz", "beta-0.1.0.tgz"} {
		x, ok1 := a.chartArchiveAt(repoURL, f)
		y, ok2 := b.chartArchiveAt(repoURL, f)
		if !ok1 || !ok2 || !bytes.Equal(x, y) {
			t.Errorf("%s: archives differ or are missing (%v, %v)", f, ok1, ok2)
		}
	}
}

// A chart whose Chart.yaml Helm refuses is refused when published, with
// Helm's reason, not later by Argo CD's repo-server.
func TestChartRepositoryRefusesBadChart(t *testing.T) {
	s := newSources(t.TempDir())
	err := s.publishChartFiles("https://charts.example.test", "bad", "not-a-version", "1", map[string][]byte{
		"Chart.yaml": []byte("apiVersion: v2\nname: bad\nversion: not-a-version\n"),
	})
	if err == nil {
		t.Fatal("a chart with a version that is not SemVer was published")
	}
	t.Log(err)
}

// The index is what helm repo index (the real Helm CLI of the
// environment) writes for the same archives, but for the times, which
// Helm takes from the clock and platc's e2e fixes.
func TestChartIndexAsHelmWrites(t *testing.T) {
	bin := os.Getenv("PLATC_E2E_BIN")
	if bin == "" {
		t.Skip("needs PLATC_E2E_BIN (the environment's helm)")
	}
	const repoURL = "https://charts.example.test/stable"
	s := newSources(t.TempDir())
	publishTestCharts(t, s, repoURL)
	dir := t.TempDir()
	for _, f := range []string{"alpha-1.10.0.tgz", "alpha-1.9.0.tgz", "beta-0.1.0.tgz"} {
		b, _ := s.chartArchiveAt(repoURL, f)
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "helm"), "repo", "index", dir, "--url", repoURL+"/charts")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helm repo index: %v\n%s", err, out)
	}
	helmIndex, err := os.ReadFile(filepath.Join(dir, "index.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := s.chartIndex(repoURL)
	norm := func(b []byte) map[string]any {
		t.Helper()
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "generated")
		entries, _ := m["entries"].(map[string]any)
		for _, vs := range entries {
			for _, v := range vs.([]any) {
				delete(v.(map[string]any), "created")
			}
		}
		return m
	}
	if got, want := norm(ours), norm(helmIndex); !reflect.DeepEqual(got, want) {
		t.Errorf("the served index differs from helm repo index's:\nours:\n%s\nhelm's:\n%s", ours, helmIndex)
	}
}
