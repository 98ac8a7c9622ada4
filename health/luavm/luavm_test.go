package luavm

import (
	"strings"
	"testing"
	"time"
)

// TestArgoCDSetUp checks the parts of Argo CD's VM set-up that platc's
// scripts depend on, or that would make a script behave differently
// there than in a plain gopher-lua.
func TestArgoCDSetUp(t *testing.T) {
	obj := []byte(`{"status": {"list": ["a", null, "b"], "gone": null, "n": 9007199254740993, "f": 1.5}}`)
	for _, tc := range []struct {
		name, script string
		openLibs     bool
		want         Result
		err          string
	}{
		{"no string library without useOpenLibs", `return {status = "Healthy", message = string.lower("X")}`, false, Result{}, "attempt to index a non-table object(nil)"},
		{"string library with useOpenLibs", `return {status = "Healthy", message = string.lower("X")}`, true, Result{"Healthy", "x"}, ""},
		{"no math library", `return {status = "Healthy", message = tostring(math.floor(1.5))}`, false, Result{}, "attempt to index a non-table object(nil)"},
		{"base, table and os are there", `return {status = "Healthy", message = type(ipairs) .. type(table.concat) .. type(os.time) .. type(os.execute)}`, false, Result{"Healthy", "functionfunctionfunctionnil"}, ""},
		{"null list elements are dropped", `return {status = "Healthy", message = tostring(#obj.status.list) .. obj.status.list[2]}`, false, Result{"Healthy", "2b"}, ""},
		{"null keys are absent", `local n = 0 for _ in pairs(obj.status) do n = n + 1 end return {status = "Healthy", message = tostring(n)}`, false, Result{"Healthy", "3"}, ""},
		{"integers become doubles", `return {status = "Healthy", message = tostring(obj.status.n) .. " " .. tostring(obj.status.f)}`, false, Result{"Healthy", "9007199254740992 1.5"}, ""},
		{"unknown status", `return {status = "Ready", message = "x"}`, false, Result{"Unknown", InvalidStatusMessage}, ""},
		{"not a table", `return "Healthy"`, false, Result{}, "expect table output from Lua script, not string"},
		{"message must be a string", `return {status = "Healthy", message = 3}`, false, Result{}, "cannot unmarshal number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Run(tc.script, tc.openLibs, obj)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// A script that never ends is stopped after Argo CD's one second.
func TestTimeout(t *testing.T) {
	start := time.Now()
	_, err := Run(`while true do end`, false, []byte(`{}`))
	if err == nil {
		t.Fatal("an endless script returned")
	}
	if d := time.Since(start); d < Timeout || d > 20*Timeout {
		t.Errorf("stopped after %v, want about %v", d, Timeout)
	}
}
