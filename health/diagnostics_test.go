package health

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/diag"
)

// TestDiagnostics checks that everything outside the subset is reported
// at its own file:line:column, with every problem of a rule at once and
// never as Lua.
func TestDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []string
	}{
		{"arithmetic", `health "x.io/A" {
  healthy = obj.status.ready + 1 > 2
}`, []string{"rule.hcl:2:13: Arithmetic in health rule"}},
		{"for and splat", `health "x.io/A" {
  healthy  = length([for c in obj.status.conditions : c]) > 0
  degraded = contains(obj.status.nodes[*].ready, false)
}`, []string{"rule.hcl:2:21: For expression in health rule", "rule.hcl:3:23: Splat expression in health rule"}},
		{"object literal", `health "x.io/A" {
  healthy = obj.status == { phase = "Ready" }
}`, []string{"rule.hcl:2:27: Object literal in health rule"}},
		{"unknown function with suggestion", `health "x.io/A" {
  healthy = contain(["a"], obj.status.phase)
  message = format("%s", obj.status.phase)
}`, []string{"rule.hcl:2:13: Unknown function in health rule: Did you mean \"contains\"?", "rule.hcl:3:13: Unknown function in health rule"}},
		{"unknown variable", `health "x.io/A" {
  healthy = object.status.phase == "Ready"
  message = self.name
}`, []string{"rule.hcl:2:13: Unknown variable in health rule", "rule.hcl:3:13: Unknown variable in health rule"}},
		{"arity", `health "x.io/A" {
  healthy = condition(obj) == null
  message = coalesce()
}`, []string{"rule.hcl:2:13: Wrong number of arguments", "rule.hcl:3:13: Wrong number of arguments"}},
		{"indexes", `health "x.io/A" {
  healthy  = obj.status.nodes[obj.status.i] == "a"
  degraded = obj.status.nodes[-1] == "a" || obj.status.nodes[1.5] == "b"
}`, []string{"rule.hcl:2:31: Non-constant index in health rule", "rule.hcl:3:31: Invalid index", "rule.hcl:3:61: Invalid index"}},
		{"types", `health "x.io/A" {
  healthy   = "Ready"
  degraded  = obj.status.phase == "Failed" && 1
  suspended = obj.status.conditions == []
  message   = ["a"]
}`, []string{"rule.hcl:2:15: Expected a bool", "rule.hcl:3:47: Expected a bool", "rule.hcl:4:40: Cannot compare a collection", "rule.hcl:5:15: Message is not text"}},
		{"function argument types", `health "x.io/A" {
  healthy = contains("Ready", obj.status.phase) && startswith(obj.status.phase, 1)
  message = "${lower(true)} ${length(3)} ${["a"]}"
}`, []string{"rule.hcl:2:22: Wrong argument type", "rule.hcl:2:81: Wrong argument type", "rule.hcl:3:22: Wrong argument type", "rule.hcl:3:38: Wrong argument type", "rule.hcl:3:44: Cannot interpolate a collection"}},
		{"template for", `health "x.io/A" {
  healthy = true
  message = "%{for n in obj.status.nodes}${n}%{endfor}"
}`, []string{"rule.hcl:3:14: Template directive in health rule"}},
		{"missing healthy", `health "x.io/A" {
  degraded = obj.status.phase == "Failed"
}`, []string{"rule.hcl:1:8: Missing healthy expression"}},
		{"observed_generation", `health "x.io/A" {
  healthy             = true
  observed_generation = obj.status.observedGeneration != null
}`, []string{"rule.hcl:3:25: Invalid observed_generation"}},
		{"huge number", `health "x.io/A" {
  healthy = obj.status.n > 1e400
}`, []string{"rule.hcl:2:28: Number out of range"}},
		{"ordering bools", `health "x.io/A" {
  healthy = obj.status.ok > false
}`, []string{"rule.hcl:2:29: Cannot order bools"}},
		{"too deep", `health "x.io/A" {
  healthy = ` + strings.Repeat("!(", 50) + "true" + strings.Repeat(")", 50) + `
}`, []string{"rule.hcl:2:..: Health expression too deeply nested"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, files := parseRule(t, tc.src)
			r, diags := Compile(h, Scope{}, Options{Files: files})
			if r != nil {
				t.Errorf("rule compiled despite errors:\n%s", r.Lua)
			}
			var got []string
			for _, d := range diag.Sort(diags) {
				if d.Subject == nil {
					t.Errorf("diagnostic without a range: %s", d.Summary)
					continue
				}
				if d.Detail == "" {
					t.Errorf("%s has no detail saying how to fix it", d.Summary)
				}
				line := fmt.Sprintf("%s: %s", diag.At(*d.Subject), d.Summary)
				if strings.Contains(tc.name, "deep") {
					line = fmt.Sprintf("%s:%d:..: %s", d.Subject.Filename, d.Subject.Start.Line, d.Summary)
				}
				if strings.Contains(d.Detail, "Did you mean") {
					line += ": " + d.Detail[:strings.Index(d.Detail, "?")+1]
				}
				got = append(got, line)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}
