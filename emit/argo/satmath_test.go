package argo

import (
	"strconv"
	"testing"
	"time"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/satmath"
)

// worst is an app at the compiler's limits: 24h timeouts, a hundred
// retries with backoffs growing tenfold up to a day.
var worst = ir.App{
	Timeouts: ir.Timeouts{Sync: 24 * time.Hour, Health: 24 * time.Hour},
	Retry:    ir.Retry{Limit: 100, Backoff: 24 * time.Hour, Factor: 10, MaxBackoff: 24 * time.Hour},
	Teardown: ir.Teardown{Volumes: ir.VolumesRetain, Timeout: 24 * time.Hour},
}

func TestWorstCaseDoesNotWrap(t *testing.T) {
	r := ir.Retry{Limit: 100, Backoff: 30 * time.Second, Factor: 10}
	if got := worstCase(time.Hour, r); got < 101*time.Hour {
		// 30s×10^k overflows after a dozen retries; it used to wrap
		// negative and be added as such.
		t.Errorf("worstCase with unbounded backoff = %v, want at least 101h", got)
	}
	// One attempt with its sync and health timeouts, then 100 retries,
	// each a day's backoff (10× capped at a day) and a quick failure
	// within the call headroom.
	a := worst
	want := a.Timeouts.Sync + a.Timeouts.Health + callHeadroom + 100*(24*time.Hour+callHeadroom)
	if got := syncBudget(&a); got != want {
		t.Errorf("syncBudget = %v, want %v", got, want)
	}
}

// TestDeadlineSaturates: a chain of 10,000 apps at the limits adds up to
// more than a time.Duration holds; the workflow deadline saturates
// instead of wrapping, and stays above every task's deadline.
func TestDeadlineSaturates(t *testing.T) {
	apps := make([]*ir.App, 10_000)
	for i := range apps {
		a := worst
		a.Name = "app-" + strconv.Itoa(i)
		a.Application = a.Name
		a.Project = "default"
		a.Index = i
		if i > 0 {
			a.Deps = []ir.Dep{{App: apps[i-1]}}
		}
		apps[i] = &a
	}
	p := &ir.Program{Apps: apps}
	p.Platform.Name = "acme"
	p.Platform.Workflows = ir.Workflows{Namespace: "argo", ServiceAccount: "sa", Parallelism: 10}
	p.Index()
	b := newBuilder(p)
	wt, err := b.deploy(Limits)
	if err != nil {
		t.Fatal(err)
	}
	secs := *wt.Spec.ActiveDeadlineSeconds
	task, _ := strconv.Atoi(syncValues(apps[0])["deadline"])
	if secs <= 0 || secs < int64(task)*101 {
		t.Errorf("activeDeadlineSeconds = %d, want positive and above 101 times one attempt's %ds", secs, task)
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	for _, c := range []struct {
		got, want time.Duration
	}{
		{satmath.Add(satmath.Max-1, 2), satmath.Max},
		{satmath.Add(time.Hour, time.Minute), time.Hour + time.Minute},
		{satmath.Mul(satmath.Max/2, 3), satmath.Max},
		{satmath.Mul(time.Hour, 0), 0},
		{satmath.Mul(time.Hour, 101), 101 * time.Hour},
	} {
		if c.got != c.want {
			t.Errorf("got %v, want %v", c.got, c.want)
		}
	}
	if got := wholeMinutes(satmath.Max); got <= 0 {
		t.Errorf("wholeMinutes(max) = %d", got)
	}
	if got := wholeMinutes(61 * time.Second); got != 120 {
		t.Errorf("wholeMinutes(61s) = %d, want 120", got)
	}
}
