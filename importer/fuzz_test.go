package importer

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzImport feeds arbitrary YAML to the import as one file of an
// app-of-apps directory: it must never panic, and whatever it returns
// must compile (Import compiles and lints its result, and returns an
// error when it does not).
func FuzzImport(f *testing.F) {
	for _, p := range []string{
		"testdata/acme/stacks/infrastructure/cert-manager.yaml",
		"testdata/acme/apps/postgres-clusters/wait-for-dependencies.yaml",
		"testdata/acme/apps/keycloak/presync-wait.yaml",
		"testdata/acme/stacks/workloads/teams.yaml",
		"testdata/acme/stacks/workloads/delivery.yaml",
		"testdata/adopted/apps/multi-source.yaml",
		// The vocabulary of issue 22, carried over field by field.
		"testdata/parity/apps/orders.yaml",
		"testdata/parity/apps/catalog.yaml",
		"testdata/parity/apps/storefront.yaml",
		"testdata/parity/apps/alerts.yaml",
		"testdata/parity/apps/vault-config.yaml",
		"testdata/parity/apps/still-adopted.yaml",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: \"1.x\"}\nspec: {source: {repoURL: r, chart: c, targetRevision: '1'}, destination: {namespace: a}}\n"))
	root := []byte(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: root
  namespace: argocd
spec:
  source:
    repoURL: https://git.example.com/fuzz.git
    targetRevision: v1
    path: apps
  destination:
    server: https://kubernetes.default.svc
    namespace: argocd
`)
	f.Fuzz(func(t *testing.T, src []byte) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "apps"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "root.yaml"), root, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "apps", "fuzz.yaml"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		// An input that makes the import run away must fail the run
		// (and be saved) rather than stall the fuzzer.
		done := make(chan error, 1)
		go func() {
			_, _, err := Import([]string{dir}, Options{OutDir: dir})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v\ninput:\n%s", err, src)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("import ran for more than 10s on:\n%s", src)
		}
	})
}
