package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestReadmeExample keeps the README honest: its HCL example must lint
// clean with the platc of this commit.
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no ```hcl example")
	}
	p := filepath.Join(t.TempDir(), "platform.hcl")
	if err := os.WriteFile(p, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "lint", p}, &stdout, &stderr); code != exitOK {
		t.Errorf("README example: exit %d\n%s", code, stderr.String())
	}
}
