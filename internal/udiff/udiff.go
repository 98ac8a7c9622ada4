package udiff

import (
	"fmt"
	"strings"
)

// context is the number of unchanged lines shown around each change.
const context = 3

// Unified returns the unified diff that turns a into b, with a and b
// named in the --- and +++ header lines, or "" when they are equal.
func Unified(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	x, y := lines(string(a)), lines(string(b))
	ops := diff(x, y)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for _, h := range hunks(ops) {
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", span(h.aStart, h.aLen), span(h.bStart, h.bLen))
		for _, o := range h.ops {
			text := x
			i := o.a
			if o.kind == '+' {
				text, i = y, o.b
			}
			line := text[i]
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(line, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return out.String()
}

// lines splits s after each newline; the last line may lack one.
func lines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// op is one line of the edit script: ' ' kept, '-' deleted from a, '+'
// inserted from b; a and b are the line indexes it refers to.
type op struct {
	kind byte
	a, b int
}

// diff computes a shortest edit script with Myers' O(ND) algorithm,
// keeping the furthest-reaching path of every diagonal for each edit
// distance so the script can be traced back.
func diff(x, y []string) []op {
	n, m := len(x), len(y)
	max := n + m
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	for d := 0; d <= max; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				i = v[off+k+1] // down: insertion
			} else {
				i = v[off+k-1] + 1 // right: deletion
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, off, n, m, d)
			}
		}
	}
	return nil // unreachable: d = n+m always reaches the end
}

func backtrack(trace [][]int, off, n, m, dEnd int) []op {
	var rev []op
	i, j := n, m
	for d := dEnd; d >= 0; d-- {
		v := trace[d] // the furthest points before step d ran
		k := i - j
		var prevK int
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevI := v[off+prevK]
		prevJ := prevI - prevK
		if d == 0 {
			prevI, prevJ = 0, 0
		}
		// The snake: equal lines walked diagonally after the edit.
		for i > prevI && j > prevJ {
			i, j = i-1, j-1
			rev = append(rev, op{' ', i, j})
		}
		if d == 0 {
			break
		}
		// The edit itself: down is an insertion, right a deletion.
		if prevK == k+1 {
			rev = append(rev, op{'+', prevI, prevJ})
		} else {
			rev = append(rev, op{'-', prevI, prevJ})
		}
		i, j = prevI, prevJ
	}
	ops := make([]op, len(rev))
	for k, o := range rev {
		ops[len(rev)-1-k] = o
	}
	return ops
}

type hunk struct {
	aStart, aLen, bStart, bLen int
	ops                        []op
}

// hunks groups the edit script into hunks with up to context unchanged
// lines around each run of changes, merging runs that are close.
func hunks(ops []op) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-context, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		h := hunk{ops: ops[start:end]}
		h.aStart, h.bStart = ops[start].a+1, ops[start].b+1
		for _, o := range h.ops {
			if o.kind != '+' {
				h.aLen++
			}
			if o.kind != '-' {
				h.bLen++
			}
		}
		out = append(out, h)
		i = end
	}
	return out
}

// span formats a hunk range: "start,len", with the start of an empty
// range being the line before it, as diff -u does.
func span(start, n int) string {
	if n == 0 {
		start--
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
