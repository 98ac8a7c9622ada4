package ir

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		30 * time.Second:           "30s",
		90 * time.Second:           "1m30s",
		5 * time.Minute:            "5m",
		time.Hour:                  "1h",
		time.Hour + 30*time.Minute: "1h30m",
		time.Hour + 30*time.Second: "1h0m30s",
		1500 * time.Millisecond:    "2s",
		0:                          "0s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
