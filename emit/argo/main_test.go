package argo

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain raises the garbage collector's target. Argo's validation of
// the 5,000- and 10,000-app platforms allocates heavily, and at the
// default GOGC=100 the collector took about 40% of the CPU: the
// 10,000-app subtest of TestArgoAcceptsEverything ran in 34 s at
// GOGC=100 and 20 s at GOGC=400 on two cores, peak RSS 0.92 and 1.0 GB.
// A GOGC set in the environment still wins.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
