package argo

import (
	"math"
	"time"
)

// wholeMinutes is d rounded up to whole minutes, in seconds, saturating
// (see internal/satmath for why deadlines saturate).
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
