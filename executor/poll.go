package executor

import (
	"context"
	"errors"
	"time"
)

// errDeadline is poll's error when the deadline passed with check not
// yet done.
var errDeadline = errors.New("deadline passed")

// poll is the executor's one wait loop: it runs check at once, then
// every env.PollInterval, until check is done or fails, the deadline
// passes (read on env.Now, the run's clock), or ctx ends. It returns
// nil when check is done, check's error, errDeadline, or ctx's error.
// check runs at least once, so a wait whose deadline has already passed
// still looks once.
func (r *run) poll(ctx context.Context, deadline time.Time, check func() (done bool, err error)) error {
	for {
		if done, err := check(); done || err != nil {
			return err
		}
		if !r.now().Before(deadline) {
			return errDeadline
		}
		t := time.NewTimer(r.env.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
