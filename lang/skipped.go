package lang

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// skippedFiles reports the regular files of a platform directory that
// platc does not read, since a platform that silently lost a file builds
// without its apps (issue 25). A file whose extension looks like a
// mistyped .hcl (health.hlc, platform.HCL) or HCL written for another
// tool (services.tf) is a warning of its own, with the name to give it;
// the others (a README, an import report) are one notice that lists them.
// Dot files, directories (apps/, hooks/) and the reports platc import
// writes beside the platform are skipped without a word.
func skippedFiles(dir string, names []string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var others []string
	for _, name := range names {
		base := filepath.Base(name)
		if base == "import-report.txt" || base == "import-report.json" {
			continue
		}
		ext := strings.TrimPrefix(filepath.Ext(base), ".")
		stem := strings.TrimSuffix(base, filepath.Ext(base))
		if why := misnamed(ext); why != "" && stem != "" {
			r := startOf(name)
			diags = append(diags, diag.Warning(r, "Platform file not read",
				fmt.Sprintf("platc reads only the *.hcl files of the platform directory %s, so it skipped %s, and nothing declared in it is part of the platform. %s; if it belongs to the platform, rename it to %s.",
					dir, base, why, stem+".hcl")))
			continue
		}
		others = append(others, base)
	}
	if len(others) > 0 {
		d := &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Files not read",
			Detail: fmt.Sprintf("platc reads only the *.hcl files of the platform directory %s; it skipped %s. Rename a file to *.hcl if it is part of the platform.",
				dir, strings.Join(others, ", ")),
			Extra: &diag.Extra{Notice: true},
		}
		diags = append(diags, d)
	}
	return diags
}

// misnamed says why an extension looks meant to be .hcl, or "".
func misnamed(ext string) string {
	lower := strings.ToLower(ext)
	switch {
	case lower == "hcl":
		return fmt.Sprintf("The extension .%s differs from .hcl only in case", ext)
	case lower == "tf" || lower == "tfvars":
		return fmt.Sprintf("The extension .%s is Terraform's", ext)
	case typo(lower, "hcl"):
		return fmt.Sprintf("The extension .%s looks like a mistyped .hcl", ext)
	}
	return ""
}

// typo reports whether a is b with one letter added, removed, changed,
// or two neighbours swapped.
func typo(a, b string) bool {
	if a == b {
		return false
	}
	switch len(a) - len(b) {
	case 0:
		diff := []int{}
		for i := range a {
			if a[i] != b[i] {
				diff = append(diff, i)
			}
		}
		if len(diff) == 1 {
			return true
		}
		return len(diff) == 2 && diff[1] == diff[0]+1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
	case 1:
		return dropsOne(a, b)
	case -1:
		return dropsOne(b, a)
	}
	return false
}

// dropsOne reports whether removing one byte of long gives short.
func dropsOne(long, short string) bool {
	for i := range long {
		if long[:i]+long[i+1:] == short {
			return true
		}
	}
	return false
}
