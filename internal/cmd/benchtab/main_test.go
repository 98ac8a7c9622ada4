package main

import (
	"bytes"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/platc/platc/lang
BenchmarkParse/apps=43-2         	     100	   1800000 ns/op	  400000 B/op	    5000 allocs/op
BenchmarkParse/apps=43-2         	     100	   1900000 ns/op	  400000 B/op	    5000 allocs/op
BenchmarkParse/apps=43-2         	     100	   1700000 ns/op	  400000 B/op	    5000 allocs/op
BenchmarkParse/apps=43-2         	     100	   2000000 ns/op	  400000 B/op	    5000 allocs/op
BenchmarkParse/apps=43-2         	     100	   1600000 ns/op	  400000 B/op	    5000 allocs/op
BenchmarkParse/apps=43-2         	     100	   1850000 ns/op	  400000 B/op	    5000 allocs/op
BenchmarkParse/apps=1000-2       	      20	  54000000 ns/op	 9437184 B/op	  120000 allocs/op
pkg: github.com/platc/platc/importer
BenchmarkMapLines/linear/100-2   	    1000	     12000 ns/op
BenchmarkBroken-2 	 100 notanumber ns/op
ok  	github.com/platc/platc/lang	12.3s
`

// TestTable: medians per package, benchmark and size, scaled as benchstat
// scales them; fewer than 6 runs leave the interval infinite; a line
// benchfmt cannot read is reported, not dropped silently.
func TestTable(t *testing.T) {
	var warn bytes.Buffer
	res, err := read([]byte(sample), "github.com/platc/platc/", &warn)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeText(&out, res)
	got := out.String()
	// The median of 1.6, 1.7, 1.8, 1.85, 1.9 and 2.0 ms is 1.825 ms.
	// tabwriter right-aligns the padded name column too, hence the two
	// leading spaces.
	want := `  BENCHMARK                     APPS  TIME/OP  95% CI  ALLOC/OP  ALLOCS/OP  RUNS
  lang.Parse                      43  1.825ms    ±12%  390.6KiB     5.000k     6
                                1000  54.00ms      ±∞  9.000MiB     120.0k     1
  importer.MapLines/linear/100     -  12.00µs      ±∞         -          -     1
`
	if got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(warn.String(), "stdin:13:") {
		t.Errorf("the malformed line is not reported: %q", warn.String())
	}
	if failed([]byte(sample)) || !failed([]byte(sample+"--- FAIL: BenchmarkX\n")) {
		t.Error("FAIL is not detected, or detected where there is none")
	}
}
