package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// confidence is benchstat's default level for the interval around the
// median; it needs 6 runs or more to be finite (make bench runs 6).
const confidence = 0.95

// result is every run of one benchmark at one size, as benchfmt read
// them (units tidied: seconds, bytes).
type result struct {
	name, size          string
	secs, bytes, allocs []float64
}

func main() {
	md := flag.Bool("md", false, "print a Markdown table")
	module := flag.String("module", "github.com/platc/platc/", "prefix trimmed from package paths")
	flag.Parse()
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(2)
	}
	results, err := read(data, *module, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(2)
	}
	if *md {
		writeMarkdown(os.Stdout, results)
	} else {
		writeText(os.Stdout, results)
	}
	if failed(data) {
		fmt.Fprintln(os.Stderr, "benchtab: a benchmark failed")
		os.Exit(1)
	}
}

// failed reports whether go test said FAIL anywhere: benchfmt reads
// results only, and a failed benchmark has none to read.
func failed(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "--- FAIL") {
			return true
		}
	}
	return false
}

// read groups the results by package, benchmark and size (the name's
// apps=N part), in the order they first appear. A line benchfmt cannot
// parse is reported on warn and skipped.
func read(data []byte, module string, warn io.Writer) ([]*result, error) {
	byKey := map[string]*result{}
	var out []*result
	r := benchfmt.NewReader(bytes.NewReader(data), "stdin")
	for r.Scan() {
		var res *benchfmt.Result
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			fmt.Fprintln(warn, "benchtab:", rec)
			continue
		case *benchfmt.Result:
			res = rec
		default:
			continue
		}
		base, parts := res.Name.Parts()
		name, size := string(base), ""
		for _, p := range parts {
			switch {
			case strings.HasPrefix(string(p), "/apps="):
				size = strings.TrimPrefix(string(p), "/apps=")
			case !strings.HasPrefix(string(p), "-"): // -N is GOMAXPROCS
				name += string(p)
			}
		}
		name = strings.TrimPrefix(res.GetConfig("pkg"), module) + "." + name
		key := name + "\x00" + size
		g := byKey[key]
		if g == nil {
			g = &result{name: name, size: size}
			byKey[key] = g
			out = append(out, g)
		}
		for _, v := range res.Values {
			switch v.Unit {
			case "sec/op":
				g.secs = append(g.secs, v.Value)
			case "B/op":
				g.bytes = append(g.bytes, v.Value)
			case "allocs/op":
				g.allocs = append(g.allocs, v.Value)
			}
		}
	}
	return out, r.Err()
}

// summary is the median of values, and its confidence interval as
// benchstat prints it ("±3%", "±∞" with fewer than 6 runs).
func summary(values []float64) (benchmath.Summary, bool) {
	if len(values) == 0 {
		return benchmath.Summary{}, false
	}
	s := benchmath.NewSample(values, &benchmath.DefaultThresholds)
	return benchmath.AssumeNothing.Summary(s, confidence), true
}

// format is the median with benchstat's scaling and unit.
func format(values []float64, cls benchunit.Class, unit string) string {
	s, ok := summary(values)
	if !ok {
		return "-"
	}
	return benchunit.Scale(s.Center, cls) + unit
}

func rows(results []*result) [][]string {
	var out [][]string
	for _, r := range results {
		size := r.size
		if size == "" {
			size = "-"
		}
		ci := ""
		if s, ok := summary(r.secs); ok {
			ci = "±" + s.PctRangeString()
		}
		out = append(out, []string{r.name, size,
			format(r.secs, benchunit.Decimal, "s"), ci,
			format(r.bytes, benchunit.Binary, "B"),
			format(r.allocs, benchunit.Decimal, ""),
			fmt.Sprint(len(r.secs))})
	}
	return out
}

var header = []string{"BENCHMARK", "APPS", "TIME/OP", "95% CI", "ALLOC/OP", "ALLOCS/OP", "RUNS"}

func writeText(w io.Writer, results []*result) {
	rs := rows(results)
	// Names are left-aligned by hand; tabwriter right-aligns the numbers.
	width := len(header[0])
	for _, row := range rs {
		width = max(width, len(row[0]))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-len(s)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, pad(header[0])+"\t"+strings.Join(header[1:], "\t")+"\t")
	prev := ""
	for _, row := range rs {
		name := row[0]
		if name == prev {
			row[0] = ""
		}
		prev = name
		row[0] = pad(row[0])
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
}

func writeMarkdown(w io.Writer, results []*result) {
	fmt.Fprintln(w, "| benchmark | apps | time/op | 95% CI | alloc/op | allocs/op | runs |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for _, row := range rows(results) {
		row[0] = "`" + row[0] + "`"
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}
