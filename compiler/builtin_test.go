package compiler

import (
	"fmt"
	"testing"
)

// BuiltinClasses hands out the RFC 3.8.5 figures, untouched by a
// platform's class blocks.
func TestBuiltinClasses(t *testing.T) {
	got := map[string]string{}
	for _, c := range BuiltinClasses() {
		if !c.BuiltIn {
			t.Errorf("class %q not marked built-in", c.Name)
		}
		got[c.Name] = c.Timeouts.Sync.String() + "/" + c.Timeouts.Health.String()
	}
	want := map[string]string{
		"database-cluster": "15m0s/15m0s",
		"operator":         "10m0s/10m0s",
		"simple":           "5m0s/5m0s",
		"storage-cluster":  "30m0s/30m0s",
		"vault":            "15m0s/15m0s",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("BuiltinClasses = %v, want %v", got, want)
	}
}
