package lint

import (
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// --fail-on: a compiler error is an error, its warning a warning, a
// notice below both.
func TestFails(t *testing.T) {
	errD := &hcl.Diagnostic{Severity: hcl.DiagError}
	warn := &hcl.Diagnostic{Severity: hcl.DiagWarning}
	notice := &hcl.Diagnostic{Severity: hcl.DiagWarning, Extra: &diag.Extra{Notice: true, Rule: "r"}}
	for _, tc := range []struct {
		diags  hcl.Diagnostics
		failOn Severity
		want   bool
	}{
		{nil, Notice, false},
		{hcl.Diagnostics{notice}, Warning, false},
		{hcl.Diagnostics{notice}, Notice, true},
		{hcl.Diagnostics{warn}, Warning, true},
		{hcl.Diagnostics{warn, notice}, Error, false},
		{hcl.Diagnostics{notice, errD}, Error, true},
	} {
		if got := Fails(tc.diags, tc.failOn); got != tc.want {
			t.Errorf("Fails(%d diagnostics, %s) = %v", len(tc.diags), tc.failOn, got)
		}
	}
}
