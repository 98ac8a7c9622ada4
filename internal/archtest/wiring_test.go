package archtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cmd/platc is wiring: flags, arguments and the call into the package
// that owns the work (kubeconform's main is the model). A file that
// grows past this has started to own something; move that into its
// package instead of raising the number.
const maxWiringLines = 200

func TestCommandIsWiring(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "cmd", "platc", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cmd/platc sources: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if n := countLines(t, f); n > maxWiringLines {
			t.Errorf("%s has %d lines, over %d: cmd/platc is wiring; move what it decides into the package that owns it", filepath.Base(f), n, maxWiringLines)
		}
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		n++
	}
	return n
}
