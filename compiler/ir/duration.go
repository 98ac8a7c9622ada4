package ir

import (
	"strings"
	"time"
)

// FormatDuration writes a duration the way the platform language and
// Argo's backoff fields do: "30s", "5m", "1h30m", "1m30s". It rounds to
// whole seconds and drops zero trailing units.
func FormatDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
