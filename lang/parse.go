package lang

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/internal/safefile"
)

// SourceFile is one file's name and contents, for ParseSources.
type SourceFile struct {
	Name  string
	Bytes []byte
}

// Parse reads the platform at path: a directory of *.hcl files (not
// recursive) or a single file. Files are read in sorted name order, so the
// result does not depend on the order the file system lists them in.
//
// Only regular files are read, each at most MaxFileSize bytes and all of
// them together at most MaxPlatformSize. A symbolic link named *.hcl is
// followed when it leads to a regular file inside the platform directory
// and refused otherwise; it is never skipped, since a platform that
// silently lost a file would build without its apps.
func Parse(path string) (*Module, hcl.Diagnostics) {
	names, diags := PlatformFiles(path)
	if diags.HasErrors() {
		return nil, diags
	}
	srcs := make([]SourceFile, 0, len(names))
	var total int64
	for _, name := range names {
		b, err := safefile.Read(name, MaxFileSize)
		if err != nil {
			r := startOf(name)
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot read platform file",
				Detail:   readFailure(name, err),
				Subject:  &r,
			})
			continue
		}
		total += int64(len(b))
		if total > MaxPlatformSize {
			// Stop reading: the files read so far are already too many.
			r := startOf(name)
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Platform too large",
				Detail: fmt.Sprintf("With %s the platform's .hcl files hold more than %s together, the most platc reads (a 10,000-app platform is about 3 MiB). Remove files that are not part of the platform from %s.",
					name, safefile.Size(MaxPlatformSize), path),
				Subject: &r,
			})
			break
		}
		srcs = append(srcs, SourceFile{Name: name, Bytes: b})
	}
	if diags.HasErrors() {
		return nil, diags
	}
	m, pdiags := ParseSources(srcs)
	if m != nil {
		m.Dir = platformDir(path)
	}
	return m, append(diags, pdiags...)
}

// readFailure says why a platform file could not be read and what to do.
func readFailure(name string, err error) string {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return fmt.Sprintf("%s. A platform file must be a regular file; rename or remove it.", err)
	case errors.As(err, &tl):
		return fmt.Sprintf("%s (%s). Split the platform into several files, or remove what is not part of it.", err, safefile.Size(MaxFileSize))
	}
	return fmt.Sprintf("Reading %s failed: %s.", name, safefile.Unwrap(err))
}

// platformDir is the directory everything the platform names must stay
// in: the platform directory, or the directory of a single file.
func platformDir(path string) string {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return filepath.Clean(path)
	}
	return filepath.Dir(path)
}

// PlatformFiles lists the files that make up the platform at path, in
// the order Parse reads them, with warnings for the files of the
// directory it skips. platc fmt formats the same files, so a file build
// reads is never one fmt passes over.
func PlatformFiles(path string) ([]string, hcl.Diagnostics) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Platform not found",
			Detail:   fmt.Sprintf("Cannot open %s: %s. Pass the path of a platform directory or of one .hcl file.", path, safefile.Unwrap(err)),
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
			Detail:   fmt.Sprintf("Listing %s failed: %s.", path, safefile.Unwrap(err)),
		}}
	}
	var names, skipped []string
	var diags hcl.Diagnostics
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !strings.HasSuffix(e.Name(), ".hcl") {
			if e.Type().IsRegular() {
				skipped = append(skipped, filepath.Join(path, e.Name()))
			}
			continue
		}
		name := filepath.Join(path, e.Name())
		if d := checkEntry(path, name, e); d != nil {
			diags = append(diags, d)
			continue
		}
		names = append(names, name)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if len(names) == 0 {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "No platform files",
			Detail:   fmt.Sprintf("The directory %s has no *.hcl files. Pass the directory that holds your platform's .hcl files, or one file.", path),
		}}
	}
	slices.Sort(names)
	slices.Sort(skipped)
	return names, skippedFiles(path, skipped)
}

// checkEntry refuses a *.hcl entry of the platform directory that platc
// cannot read as a platform file: anything but a regular file, or a
// symbolic link to one inside the directory.
func checkEntry(dir, name string, e fs.DirEntry) *hcl.Diagnostic {
	bad := func(detail string) *hcl.Diagnostic {
		r := startOf(name)
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read platform file", Detail: detail, Subject: &r}
	}
	if e.Type().IsRegular() {
		return nil
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return bad(fmt.Sprintf("%s is %s, not a regular file. Rename or remove it: every *.hcl file in the platform directory is part of the platform.", name, safefile.Describe(e.Type())))
	}
	info, err := os.Stat(name)
	switch {
	case err != nil:
		return bad(fmt.Sprintf("%s is a symbolic link that cannot be followed: %s. Fix or remove the link.", name, safefile.Unwrap(err)))
	case !info.Mode().IsRegular():
		return bad(fmt.Sprintf("%s is a symbolic link to %s, not to a regular file. Fix or remove the link.", name, safefile.Describe(info.Mode())))
	case !safefile.Within(dir, name):
		return bad(fmt.Sprintf("%s is a symbolic link to a file outside %s. platc reads nothing outside the platform directory; copy the file in, or link to a file inside it.", name, dir))
	}
	return nil
}

// ParseSources parses the given files as one platform. The files are
// decoded in the order given; Parse sorts them by name first.
func ParseSources(srcs []SourceFile) (*Module, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var bodies []*hcl.File
	m := &Module{Files: make(map[string]*hcl.File, len(srcs))}
	if len(srcs) > 0 {
		m.Dir = filepath.Dir(srcs[0].Name)
	}
	files, fileDiags := parseFiles(srcs)
	for k, s := range srcs {
		f, ds := files[k], fileDiags[k]
		diags = append(diags, ds...)
		m.FileNames = append(m.FileNames, s.Name)
		m.Files[s.Name] = f
		if f != nil && !ds.HasErrors() {
			if ds := checkText(s.Name, f); ds.HasErrors() {
				diags = append(diags, ds...)
				continue
			}
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
