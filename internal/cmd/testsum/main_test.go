package main

import (
	"bytes"
	"strings"
	"testing"
)

// A passing package, a package whose tests skipped (grouped by reason),
// and a failing test whose output is shown.
func TestSummary(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"m/a","Test":"TestOK"}`,
		`{"Action":"pass","Package":"m/a","Test":"TestOK","Elapsed":0.1}`,
		`{"Action":"pass","Package":"m/a","Elapsed":1.5}`,
		`{"Action":"run","Package":"m/b","Test":"TestX"}`,
		`{"Action":"output","Package":"m/b","Test":"TestX","Output":"=== RUN   TestX\n"}`,
		`{"Action":"output","Package":"m/b","Test":"TestX","Output":"    x_test.go:12: PLATC_KUBE_APISERVER is not set\n"}`,
		`{"Action":"output","Package":"m/b","Test":"TestX","Output":"--- SKIP: TestX (0.00s)\n"}`,
		`{"Action":"skip","Package":"m/b","Test":"TestX"}`,
		`{"Action":"output","Package":"m/b","Test":"TestY","Output":"    x_test.go:20: PLATC_KUBE_APISERVER is not set\n"}`,
		`{"Action":"skip","Package":"m/b","Test":"TestY"}`,
		`{"Action":"output","Package":"m/b","Test":"TestZ","Output":"    z_test.go:3: SKIP: dot not found (apt-get install graphviz)\n"}`,
		`{"Action":"skip","Package":"m/b","Test":"TestZ"}`,
		`{"Action":"output","Package":"m/b","Test":"TestBad","Output":"    bad_test.go:7: got 2, want 3\n"}`,
		`{"Action":"fail","Package":"m/b","Test":"TestBad"}`,
		`{"Action":"fail","Package":"m/b","Elapsed":2}`,
		`{"Action":"skip","Package":"m/c"}`,
	}, "\n")
	var out bytes.Buffer
	if code := run(strings.NewReader(in), &out, "m/"); code != 1 {
		t.Errorf("exit %d, want 1 (a test failed)", code)
	}
	want := "ok  \tm/a\t1.5s\n" +
		"    bad_test.go:7: got 2, want 3\n" +
		"FAIL\tm/b\t2.0s\n" +
		"\n3 tests skipped:\n" +
		"SKIP\tb: TestX, TestY\n\tPLATC_KUBE_APISERVER is not set\n" +
		"SKIP\tb: TestZ\n\tdot not found (apt-get install graphviz)\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	if code := run(strings.NewReader(`{"Action":"pass","Package":"m/a","Elapsed":1}`), &out, "m/"); code != 0 {
		t.Errorf("all passing: exit %d", code)
	}
	if code := run(strings.NewReader("no such flag\n"), &out, "m/"); code != 1 {
		t.Errorf("no package results: exit %d, want 1", code)
	}
}
