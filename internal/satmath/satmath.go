// Package satmath is saturating arithmetic on durations.
//
// Deadlines and worst cases add and multiply durations the compiler
// bounds one by one (timeouts up to 24h, a hundred retries, backoff
// factors up to 10), but that add up over thousands of apps and compound
// over retries: a chain of 10,000 apps at their worst passes the 292
// years a time.Duration holds, and retry { limit = 2147483647 } once made
// activeDeadlineSeconds negative (issue 13). Such sums therefore
// saturate: they can come out too long, never wrapped around to a short
// or negative duration.
package satmath

import (
	"math"
	"time"
)

// Max is the longest duration, where sums stop.
const Max = time.Duration(math.MaxInt64)

// Add is a+b for non-negative durations, or Max.
func Add(a, b time.Duration) time.Duration {
	if a > Max-b {
		return Max
	}
	return a + b
}

// Mul is d*n for a non-negative d and n, or Max.
func Mul(d time.Duration, n int64) time.Duration {
	if n != 0 && d > Max/time.Duration(n) {
		return Max
	}
	return d * time.Duration(n)
}
