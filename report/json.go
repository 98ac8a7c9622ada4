package report

import (
	"encoding/json"
	"io"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// JSONPos is a position in a file; line and column start at 1.
type JSONPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// JSONRange is a range of source.
type JSONRange struct {
	Filename string  `json:"filename"`
	Start    JSONPos `json:"start"`
	End      JSONPos `json:"end"`
}

// JSONRelated is another location that explains a diagnostic.
type JSONRelated struct {
	Message string    `json:"message"`
	Range   JSONRange `json:"range"`
}

// JSONDiagnostic is one diagnostic in the shape Terraform's JSON view uses,
// plus the lint rule and related locations.
type JSONDiagnostic struct {
	Severity string     `json:"severity"`
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *JSONRange `json:"range,omitempty"`
	// Rule is the lint rule, or "compiler" for the compiler's own
	// diagnostics (syntax, references, cycles, invariants), as in SARIF.
	Rule    string        `json:"rule"`
	Related []JSONRelated `json:"related,omitempty"`
}

// JSONReport is what --format json prints.
type JSONReport struct {
	Diagnostics []JSONDiagnostic `json:"diagnostics"`
	Errors      int              `json:"errors"`
	Warnings    int              `json:"warnings"`
	Notices     int              `json:"notices"`
	// Skipped is set when some enabled lint rules did not run, because
	// the platform does not compile.
	Skipped *JSONSkipped `json:"skipped,omitempty"`
}

// JSONSkipped names the lint rules that did not run and says why.
type JSONSkipped struct {
	Reason string   `json:"reason"`
	Rules  []string `json:"rules"`
}

// ToJSON converts diags to their JSON form.
func ToJSON(diags hcl.Diagnostics) JSONReport {
	rep := JSONReport{Diagnostics: make([]JSONDiagnostic, 0, len(diags))}
	rep.Errors, rep.Warnings = Counts(diags)
	rep.Notices = Notices(diags)
	for _, d := range diags {
		jd := JSONDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		switch {
		case diag.IsNotice(d):
			jd.Severity = "notice"
		case d.Severity == hcl.DiagWarning:
			jd.Severity = "warning"
		}
		if d.Subject != nil {
			r := jsonRange(*d.Subject)
			jd.Range = &r
		}
		jd.Rule = CompilerRuleID
		if e := diag.ExtraOf(d); e != nil {
			if e.Rule != "" {
				jd.Rule = e.Rule
			}
			for _, rel := range e.Related {
				jd.Related = append(jd.Related, JSONRelated{Message: rel.Message, Range: jsonRange(rel.Range)})
			}
		}
		rep.Diagnostics = append(rep.Diagnostics, jd)
	}
	return rep
}

func jsonRange(r hcl.Range) JSONRange {
	return JSONRange{
		Filename: r.Filename,
		Start:    JSONPos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
		End:      JSONPos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
	}
}

// JSON writes diags to w as one indented JSON document.
func JSON(w io.Writer, diags hcl.Diagnostics) error {
	return WriteJSON(w, ToJSON(diags))
}

// WriteJSON writes a report built with ToJSON, once the caller has added
// to it.
func WriteJSON(w io.Writer, rep JSONReport) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}
