package importer

import (
	"testing"
	"testing/fstest"
)

// TestMemFS holds memFS to the io/fs contract, which lint relies on
// when it reads the imported hook manifests from it.
func TestMemFS(t *testing.T) {
	m := memFS{
		"hooks/web/migrate.yaml": []byte("kind: Job\n"),
		"hooks/web/seed.yaml":    []byte(""),
		"values/web.yaml":        []byte("replicas: 2\n"),
	}
	if err := fstest.TestFS(m, "hooks/web/migrate.yaml", "hooks/web/seed.yaml", "values/web.yaml"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"hooks/web/nope.yaml", "hooks/we", "../x", "/hooks"} {
		if f, err := m.Open(bad); err == nil {
			f.Close()
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
}
