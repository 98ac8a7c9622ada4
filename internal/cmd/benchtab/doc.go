// Command benchtab turns the output of go test -bench (any -count) into a
// table: one row per benchmark and size, with the median time, bytes and
// allocations per operation over the runs, so that a noisy machine's
// outliers do not decide the numbers, and the 95% confidence interval of
// the median time. make bench pipes into it.
//
//	go test -run '^$' -bench . -benchmem -count 6 ./... | go run ./internal/cmd/benchtab
//
// The reading, the statistics and the scaling are golang.org/x/perf's
// (benchfmt, benchmath, benchunit), the code behind benchstat, so the
// table agrees with benchstat run on the same file; benchtab only groups
// by package, benchmark and apps=N and lays the rows out. The interval
// needs 6 runs or more (fewer print ±∞, as benchstat does).
//
// With -md it prints a Markdown table (the README's performance section).
// A line benchfmt cannot read is reported on stderr and skipped; a FAIL
// in the input makes it exit 1 after printing what it has.
package main
