package importer

import (
	"strings"
	"testing"
	"time"
)

// A template that only loops, writing and allocating nothing, is
// stopped at the time budget (here shortened): nothing in it calls code
// of platc's that could count, which is why renderings run in a process.
func TestRenderTimeBudget(t *testing.T) {
	defer func(d time.Duration) { renderTime = d }(renderTime)
	renderTime = 2 * time.Second
	start := time.Now()
	_, err := runSandbox(&sandboxRequest{
		Templates: []string{`{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}`},
		Params:    []map[string]any{{"a": 1}},
	})
	if err == nil || !strings.Contains(err.Error(), "took longer than 2s") {
		t.Fatalf("err = %v, want the time budget", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("stopped after %s", took)
	}
}

// Values go to the renderer and come back with their types: Helm
// templates tell an int64 from a float64 and a null from a missing key.
func TestRenderValuesRoundTrip(t *testing.T) {
	params := map[string]any{"i": int64(3), "f": float64(3), "s": "x", "b": true, "n": nil,
		"l": []any{int64(1), "y", nil}, "m": map[string]any{"k": []string{"a"}}, "yamlInt": 7}
	resp, err := runSandbox(&sandboxRequest{
		Templates: []string{`{{ kindOf .i }} {{ kindOf .f }} {{ kindOf .s }} {{ kindOf .b }} {{ hasKey . "n" }} {{ .n }} {{ index .l 1 }} {{ index .m.k 0 }} {{ kindOf .yamlInt }}`},
		Params:    []map[string]any{params},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resp.Out[0][0], "int64 float64 string bool true <no value> y a int"; got != want || resp.Errs[0][0] != "" {
		t.Errorf("got %q (%s), want %q", got, resp.Errs[0][0], want)
	}
}
