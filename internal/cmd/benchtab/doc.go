// Command benchtab turns the output of go test -bench (any -count) into a
// table: one row per benchmark and size, with the median time, bytes and
// allocations per operation over the runs, so that a noisy machine's
// outliers do not decide the numbers. make bench pipes into it.
//
//	go test -run '^$' -bench . -benchmem -count 5 ./... | go run ./internal/cmd/benchtab
//
// With -md it prints a Markdown table (the README's performance section).
// Lines that are not benchmark results are ignored, except a FAIL, which
// makes it exit 1 after printing what it has.
package main
