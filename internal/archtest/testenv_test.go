package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A package whose tests start the shared API server (testenv.Require)
// stops it in its TestMain (testenv.Stop): the server is an etcd and a
// kube-apiserver outside the test process, and nothing else ends them.
// executor/preflight once lacked it, and every make test left both
// running.
func TestTestenvIsStopped(t *testing.T) {
	root := filepath.Join("..", "..")
	requires, stops := map[string]bool{}, map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		requires[dir] = requires[dir] || strings.Contains(string(b), "testenv.Require(")
		stops[dir] = stops[dir] || strings.Contains(string(b), "testenv.Stop()")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for dir, req := range requires {
		if !req {
			continue
		}
		n++
		if !stops[dir] {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("%s: its tests call testenv.Require but no TestMain calls testenv.Stop, so each run leaves the API server running", rel)
		}
	}
	if n == 0 {
		t.Fatal("no test calls testenv.Require: the walk found nothing to check")
	}
}
