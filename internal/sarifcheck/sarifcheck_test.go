package sarifcheck

import (
	"strings"
	"testing"
)

// The validator must reject what the schema forbids, or a passing SARIF
// test would prove nothing.
func TestValidateRejectsInvalidLogs(t *testing.T) {
	valid := `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "platc"}}, "results": []}]}`
	if err := Validate([]byte(valid)); err != nil {
		t.Fatalf("minimal valid log rejected: %v", err)
	}
	for name, log := range map[string]string{
		"wrong version":   `{"version": "2.0.0", "runs": []}`,
		"missing driver":  `{"version": "2.1.0", "runs": [{"tool": {}}]}`,
		"unknown field":   `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "p", "information_uri": "x"}}}]}`,
		"bad level":       `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "p"}}, "results": [{"level": "notice", "message": {"text": "m"}}]}]}`,
		"line zero":       `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "p"}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a"}, "region": {"startLine": 0}}}]}]}]}`,
		"not a uri":       `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "p", "informationUri": "::not a uri"}}}]}`,
		"not json at all": `{`,
	} {
		if err := Validate([]byte(log)); err == nil {
			t.Errorf("%s: accepted:\n%s", name, log)
		} else if strings.Contains(err.Error(), "embedded schema") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
