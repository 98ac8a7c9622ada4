package lang

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format returns src in HCL's canonical layout (hclwrite.Format: indents,
// aligned equals signs, spacing around operators), or the syntax errors
// that stop it. A file that does not parse is never rewritten, since
// formatting broken tokens could make things worse.
func Format(filename string, src []byte) ([]byte, hcl.Diagnostics) {
	if diags := CheckSource(filename, src); diags.HasErrors() {
		return nil, diags
	}
	if _, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	return hclwrite.Format(src), nil
}
