package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// A notice travels as an hcl warning with diag.Extra.Notice set; every
// renderer must show it as a notice and keep it out of the warning count.
func TestNoticeIsNotAWarning(t *testing.T) {
	r := hcl.Range{Filename: "p.hcl", Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 2, Byte: 1}}
	notice := diag.Warning(r, "edge is implied", "Remove it.")
	notice.Extra = &diag.Extra{Rule: "redundant-dependency", Notice: true}
	warning := diag.Warning(r, "chart is unpinned", "Pin it.")
	diags := hcl.Diagnostics{notice, warning}

	if e, w := Counts(diags); e != 0 || w != 1 {
		t.Errorf("Counts = %d errors, %d warnings; want 0, 1", e, w)
	}
	if got, want := Summary(diags), "0 errors, 1 warning, 1 notice"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if got, want := Summary(hcl.Diagnostics{warning}), "0 errors, 1 warning"; got != want {
		t.Errorf("Summary without notices = %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := Text(&b, nil, hcl.Diagnostics{notice}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "Notice: edge is implied\n") {
		t.Errorf("text rendering:\n%s", b.String())
	}
	rep := ToJSON(diags)
	if rep.Diagnostics[0].Severity != "notice" || rep.Notices != 1 || rep.Warnings != 1 {
		t.Errorf("JSON: %+v", rep)
	}
}
