// Package udiff writes unified diffs of text files, as `diff -u` and git
// print them, for platc fmt --diff.
//
// It is a small line-based Myers diff, not a general diff library: it
// has no word diffs, no rename detection and no patience heuristics,
// which fmt's whitespace-only changes do not need.
package udiff
