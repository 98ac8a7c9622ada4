package importer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Write writes everything or nothing, and CheckOutDir refuses a
// directory that holds anything.
func TestWrite(t *testing.T) {
	res := &Result{
		HCL:     []byte("platform \"p\" {}\n"),
		Adopted: []File{{Path: "adopted/a.yaml", Data: []byte("a: 1\n")}},
		Hooks:   []File{{Path: "hooks/web/job.yaml", Data: []byte("b: 2\n")}},
		Report:  &Report{},
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := CheckOutDir(dir); err != nil {
		t.Fatalf("a new directory: %v", err)
	}
	written, err := Write(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range written {
		r, _ := filepath.Rel(dir, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	if want := []string{PlatformFile, ReportTextFile, ReportJSONFile, "adopted/a.yaml", "hooks/web/job.yaml"}; !slices.Equal(rel, want) {
		t.Errorf("wrote %v, want %v", rel, want)
	}
	if err := CheckOutDir(dir); err == nil || !strings.Contains(err.Error(), "is not empty") {
		t.Errorf("a directory with files: %v", err)
	}

	// hooks/ taken by a file: the hook cannot be written, and what was
	// written before it is removed.
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hooks"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(dir, res); err == nil {
		t.Fatal("Write succeeded with hooks/ a file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "hooks" {
		t.Errorf("left behind after a failure: %v", entries)
	}
}
