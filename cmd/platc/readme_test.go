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

// TestReadmeImport keeps the walkthrough of "Migrating an existing
// platform" honest: the summary it shows and the evidence comments of
// its HCL excerpt are what importing the acme fixture gives.
func TestReadmeImport(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := bytes.Cut(readme, []byte("## Migrating an existing platform"))
	if !ok {
		t.Fatal("README has no section \"Migrating an existing platform\"")
	}
	section, _, _ = bytes.Cut(section, []byte("\n## "))
	out := filepath.Join(t.TempDir(), "platform")
	t.Chdir("../../importer/testdata")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "import", "-o", out, "acme"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	hcl, err := os.ReadFile(filepath.Join(out, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range bytes.Split(section, []byte("\n")) {
		l := bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(l, []byte("platc import: ")), bytes.HasPrefix(l, []byte("35 dependencies")), bytes.HasPrefix(l, []byte("8 hooks")):
			if !bytes.Contains(stdout.Bytes(), l) {
				t.Errorf("README shows %q, platc import prints:\n%s", l, stdout.String())
			}
			checked++
		case bytes.HasPrefix(l, []byte("# crd, ")), bytes.HasPrefix(l, []byte("# wait, ")):
			if !bytes.Contains(hcl, l) {
				t.Errorf("README shows %q, which the imported platform.hcl does not have", l)
			}
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("checked only %d lines of the README's walkthrough", checked)
	}
}
