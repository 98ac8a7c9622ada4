package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// result is every run of one benchmark.
type result struct {
	pkg, name, size   string
	ns, bytes, allocs []float64
	order             int
}

var (
	pkgLine   = regexp.MustCompile(`^pkg: (\S+)`)
	benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
)

func main() {
	md := flag.Bool("md", false, "print a Markdown table")
	module := flag.String("module", "github.com/platc/platc/", "prefix trimmed from package paths")
	flag.Parse()
	results, failed, err := read(os.Stdin, *module)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(2)
	}
	if *md {
		writeMarkdown(os.Stdout, results)
	} else {
		writeText(os.Stdout, results)
	}
	if failed {
		fmt.Fprintln(os.Stderr, "benchtab: a benchmark failed")
		os.Exit(1)
	}
}

func read(r io.Reader, module string) ([]*result, bool, error) {
	byKey := map[string]*result{}
	var out []*result
	pkg := ""
	failed := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if m := pkgLine.FindStringSubmatch(line); m != nil {
			pkg = strings.TrimPrefix(m[1], module)
			continue
		}
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") {
			failed = true
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, size := m[1], ""
		// Sizes are the last element, apps=N.
		if i := strings.LastIndex(name, "/apps="); i >= 0 {
			name, size = name[:i], name[i+len("/apps="):]
		}
		key := pkg + "." + name + "/" + size
		res := byKey[key]
		if res == nil {
			res = &result{pkg: pkg, name: name, size: size, order: len(out)}
			byKey[key] = res
			out = append(out, res)
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				res.ns = append(res.ns, v)
			case "B/op":
				res.bytes = append(res.bytes, v)
			case "allocs/op":
				res.allocs = append(res.allocs, v)
			}
		}
	}
	return out, failed, sc.Err()
}

func median(v []float64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// spread is how far the slowest and fastest run are from the median, in
// percent: how much to trust the time.
func spread(v []float64) string {
	m, ok := median(v)
	if !ok || len(v) < 2 || m == 0 {
		return ""
	}
	lo, hi := slices.Min(v), slices.Max(v)
	return fmt.Sprintf("±%.0f%%", 100*max(hi-m, m-lo)/m)
}

func fmtTime(v []float64) string {
	m, ok := median(v)
	if !ok {
		return "-"
	}
	d := time.Duration(m)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	case d >= time.Microsecond:
		return fmt.Sprintf("%.1f µs", float64(d)/1e3)
	}
	return fmt.Sprintf("%d ns", d)
}

func fmtBytes(v []float64) string {
	m, ok := median(v)
	if !ok {
		return "-"
	}
	switch {
	case m >= 1<<30:
		return fmt.Sprintf("%.2f GiB", m/(1<<30))
	case m >= 1<<20:
		return fmt.Sprintf("%.1f MiB", m/(1<<20))
	case m >= 1<<10:
		return fmt.Sprintf("%.1f KiB", m/(1<<10))
	}
	return fmt.Sprintf("%.0f B", m)
}

func fmtCount(v []float64) string {
	m, ok := median(v)
	if !ok {
		return "-"
	}
	switch {
	case m >= 1e6:
		return fmt.Sprintf("%.2fM", m/1e6)
	case m >= 1e3:
		return fmt.Sprintf("%.1fk", m/1e3)
	}
	return fmt.Sprintf("%.0f", m)
}

func rows(results []*result) [][]string {
	var out [][]string
	for _, r := range results {
		size := r.size
		if size == "" {
			size = "-"
		}
		out = append(out, []string{r.pkg + "." + r.name, size, fmtTime(r.ns), spread(r.ns), fmtBytes(r.bytes), fmtCount(r.allocs), fmt.Sprint(len(r.ns))})
	}
	return out
}

var header = []string{"BENCHMARK", "APPS", "TIME/OP", "SPREAD", "ALLOC/OP", "ALLOCS/OP", "RUNS"}

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
	fmt.Fprintln(w, "| benchmark | apps | time/op | spread | alloc/op | allocs/op | runs |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for _, row := range rows(results) {
		row[0] = "`" + row[0] + "`"
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}
