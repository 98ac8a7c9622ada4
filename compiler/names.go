package compiler

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/valid"
	"github.com/platc/platc/diag"
)

// checkName reports name if it is not a valid DNS-1123 label without a
// leading digit.
func checkName(what, name string, r hcl.Range) *hcl.Diagnostic {
	why := NameProblem(name)
	if why == "" {
		return nil
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Invalid %s name", what),
		Detail:   fmt.Sprintf("The %s name %q %s. Rename it, for example to %q.", what, name, why, SuggestName(name)),
		Subject:  r.Ptr(),
	}
}

// NameProblem returns "" when name is a valid platform, stack or app
// name, else why not, as the end of a sentence starting with the name.
func NameProblem(name string) string {
	switch {
	case valid.AppName(name):
		return ""
	case len(name) > 63:
		return fmt.Sprintf("is %d characters long; names are at most 63 characters", len(name))
	case name == "":
		return "is empty"
	case name[0] >= '0' && name[0] <= '9':
		return "starts with a digit; Argo Workflows rejects task names that start with a digit"
	}
	return "must be a DNS-1123 label: lower-case letters, digits and '-', starting with a letter and ending with a letter or digit"
}

// SuggestName turns an arbitrary string into a valid name, for the
// "for example" in diagnostics and platc init's default platform name.
func SuggestName(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s) && len(out) < 63; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			out = append(out, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			out = append(out, c)
		case len(out) > 0 && out[len(out)-1] != '-':
			out = append(out, '-')
		}
	}
	for len(out) > 0 && out[len(out)-1] == '-' {
		out = out[:len(out)-1]
	}
	if len(out) == 0 || out[0] < 'a' || out[0] > 'z' {
		out = append([]byte("x-"), out...)
	}
	if len(out) > 63 {
		out = out[:63]
	}
	return string(out)
}

// duplicateName reports a second declaration of a name.
func duplicateName(what, name string, at, first hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Duplicate %s", what),
		Detail:   fmt.Sprintf("%s %s named %q is already declared at %s. %s names must be unique across the platform; rename or remove one of them.", capitalize(article(what)), what, name, diag.At(first), capitalize(what)),
		Subject:  at.Ptr(),
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b)
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}
