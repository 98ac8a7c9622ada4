package executor

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPoll: the one wait loop ends when check is done, when check fails,
// when the deadline passes on the run's clock (not the wall's), and when
// ctx ends mid-wait; it always looks at least once.
func TestPoll(t *testing.T) {
	clock := time.Unix(0, 0)
	r := &run{env: Env{PollInterval: time.Millisecond, Now: func() time.Time { return clock }}}
	deadline := clock.Add(time.Minute)

	n := 0
	if err := r.poll(context.Background(), deadline, func() (bool, error) { n++; return n == 3, nil }); err != nil || n != 3 {
		t.Errorf("done on the third check: err %v after %d checks", err, n)
	}
	boom := errors.New("boom")
	if err := r.poll(context.Background(), deadline, func() (bool, error) { return false, boom }); err != boom {
		t.Errorf("check's error: got %v", err)
	}
	// Each check advances the run's clock 25s: the third is past the minute.
	n = 0
	err := r.poll(context.Background(), deadline, func() (bool, error) { n++; clock = clock.Add(25 * time.Second); return false, nil })
	if !errors.Is(err, errDeadline) || n != 3 {
		t.Errorf("deadline: err %v after %d checks, want errDeadline after 3", err, n)
	}
	n = 0
	if err := r.poll(context.Background(), clock.Add(-time.Hour), func() (bool, error) { n++; return false, nil }); !errors.Is(err, errDeadline) || n != 1 {
		t.Errorf("past deadline: err %v after %d checks, want one look", err, n)
	}
	// A long interval: only ctx can end the wait.
	r.env.PollInterval = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	start := time.Now()
	if err := r.poll(ctx, clock.Add(24*time.Hour), func() (bool, error) { return false, nil }); !errors.Is(err, context.Canceled) || time.Since(start) > time.Minute {
		t.Errorf("cancelled: err %v after %s", err, time.Since(start))
	}
}
