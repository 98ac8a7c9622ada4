// Package starter holds the platform platc init writes: small, commented,
// and accepted by platc lint and platc build as it is (its tests run
// both).
package starter

import (
	_ "embed"
	"strings"
)

//go:embed platform.hcl
var template string

// FileName is the file platc init writes.
const FileName = "platform.hcl"

// Platform is the starter platform named name. name must already be a
// valid platform name (compiler.NameProblem): it is written into HCL
// as it is.
func Platform(name string) []byte {
	return []byte(strings.ReplaceAll(template, "NAME", name))
}
