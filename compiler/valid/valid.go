// Package valid is the one home of the name and version grammar that
// Kubernetes, Argo and Helm impose: DNS-1123 names as
// k8s.io/apimachinery/pkg/util/validation checks them (so platc accepts
// exactly what the API server does), label keys and values, and semantic
// versions as Masterminds/semver (Helm's parser) reads them.
//
// The compiler turns a failed check into a diagnostic with its own words
// and hint (compiler/grammar.go); emit/argo's self-check, the importer
// and the lint rules ask the same questions here. It is a leaf below
// compiler, so lint/rules, which may not import the compiler, can use it.
package valid

import (
	"strings"

	"github.com/Masterminds/semver/v3"
	"k8s.io/apimachinery/pkg/util/validation"
)

// DNSLabel reports whether s is a DNS-1123 label: at most 63 lower-case
// letters, digits and '-', starting and ending with a letter or digit
// (a namespace).
func DNSLabel(s string) bool { return len(validation.IsDNS1123Label(s)) == 0 }

// DNSSubdomain reports whether s is a DNS-1123 subdomain: at most 253
// characters of DNS-1123 labels joined by '.' (most object names).
func DNSSubdomain(s string) bool { return len(validation.IsDNS1123Subdomain(s)) == 0 }

// AppName reports whether s is a DNS-1123 label that starts with a
// letter: app names become Application names and Argo task names, and
// Argo's depends expressions need a leading letter.
func AppName(s string) bool { return DNSLabel(s) && s[0] >= 'a' && s[0] <= 'z' }

// QualifiedName reports whether s is a label or annotation key: an
// optional DNS-1123 subdomain prefix and '/', then a name of at most 63
// letters, digits, '-', '_' and '.', starting and ending with a letter
// or digit.
func QualifiedName(s string) bool { return len(validation.IsQualifiedName(s)) == 0 }

// LabelValue reports whether s is a non-empty label value.
func LabelValue(s string) bool { return s != "" && len(validation.IsValidLabelValue(s)) == 0 }

// Semver reports whether s is one semantic version (semver.org):
// major.minor.patch without leading zeros, an optional pre-release and
// build metadata, and an optional leading "v" as Helm and Git tags write
// it.
func Semver(s string) bool {
	_, err := semver.StrictNewVersion(strings.TrimPrefix(s, "v"))
	return err == nil
}
