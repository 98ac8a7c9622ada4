package argo

import (
	"math"
	"time"
)

// Deadlines add and multiply durations the compiler bounds one by one
// (timeouts up to 24h, a hundred retries, backoff factors up to 10), but
// that add up over thousands of apps and compound over retries: a chain
// of 10,000 apps at their worst passes the 292 years a time.Duration
// holds, and retry { limit = 2147483647 } once made activeDeadlineSeconds
// negative (issue 13). Deadline arithmetic therefore saturates: a
// deadline can come out too long, never wrapped around to a short or
// negative one.

const maxDuration = time.Duration(math.MaxInt64)

// addSat is a+b for non-negative durations, or maxDuration.
func addSat(a, b time.Duration) time.Duration {
	if a > maxDuration-b {
		return maxDuration
	}
	return a + b
}

// mulSat is d*n for a non-negative d and n, or maxDuration.
func mulSat(d time.Duration, n int64) time.Duration {
	if n != 0 && d > maxDuration/time.Duration(n) {
		return maxDuration
	}
	return d * time.Duration(n)
}

// wholeMinutes is d rounded up to whole minutes, in seconds, saturating.
func wholeMinutes(d time.Duration) int64 {
	m := int64(d / time.Minute)
	if d%time.Minute != 0 {
		m++
	}
	if m > math.MaxInt64/60 {
		return math.MaxInt64 / 60 * 60
	}
	return m * 60
}
