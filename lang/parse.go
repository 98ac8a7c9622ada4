package lang

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// SourceFile is one file's name and contents, for ParseSources.
type SourceFile struct {
	Name  string
	Bytes []byte
}

// Parse reads the platform at path: a directory of *.hcl files (not
// recursive) or a single file. Files are read in sorted name order, so the
// result does not depend on the order the file system lists them in.
func Parse(path string) (*Module, hcl.Diagnostics) {
	names, diags := platformFiles(path)
	if diags.HasErrors() {
		return nil, diags
	}
	srcs := make([]SourceFile, 0, len(names))
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot read platform file",
				Detail:   fmt.Sprintf("Reading %s failed: %s.", name, unwrapPathError(err)),
			})
			continue
		}
		srcs = append(srcs, SourceFile{Name: name, Bytes: b})
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return ParseSources(srcs)
}

// platformFiles lists the files that make up the platform at path.
func platformFiles(path string) ([]string, hcl.Diagnostics) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Platform not found",
			Detail:   fmt.Sprintf("Cannot open %s: %s. Pass the path of a platform directory or of one .hcl file.", path, unwrapPathError(err)),
		}}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read platform directory",
			Detail:   fmt.Sprintf("Listing %s failed: %s.", path, unwrapPathError(err)),
		}}
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".hcl") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, filepath.Join(path, e.Name()))
		}
	}
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No platform files",
			Detail:   fmt.Sprintf("The directory %s has no *.hcl files. Pass the directory that holds your platform's .hcl files, or one file.", path),
		}}
	}
	slices.Sort(names)
	return names, nil
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// ParseSources parses the given files as one platform. The files are
// decoded in the order given; Parse sorts them by name first.
func ParseSources(srcs []SourceFile) (*Module, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var bodies []*hcl.File
	m := &Module{Files: make(map[string]*hcl.File, len(srcs))}
	files, fileDiags := parseFiles(srcs)
	for k, s := range srcs {
		f, ds := files[k], fileDiags[k]
		diags = append(diags, ds...)
		m.FileNames = append(m.FileNames, s.Name)
		m.Files[s.Name] = f
		if f != nil && !ds.HasErrors() {
			bodies = append(bodies, f)
		}
	}
	if diags.HasErrors() {
		// Decoding a file that did not parse would only repeat its errors
		// as confusing follow-on messages.
		return m, diags
	}
	d := &decoder{m: m}
	for _, f := range bodies {
		d.decodeFile(f)
	}
	if m.Platform == nil && len(srcs) > 0 {
		r := startOf(srcs[0].Name)
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing platform block",
			Detail:   "Every platform needs exactly one platform block naming it, for example:\n  platform \"acme\" {\n    git {\n      repo_url = \"https://git.example.com/platform.git\"\n    }\n  }",
			Subject:  &r,
		})
	}
	return m, append(diags, d.diags...)
}

func startOf(filename string) hcl.Range {
	p := hcl.Pos{Line: 1, Column: 1, Byte: 0}
	return hcl.Range{Filename: filename, Start: p, End: p}
}
