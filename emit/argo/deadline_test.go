package argo

import (
	"strconv"
	"testing"
	"time"

	"github.com/platc/platc/compiler/ir"
)

// TestExampleDeadlines pins what the example's deadlines are made of
// (issue 19, finding 9: the deploy's was 93,960 s, 26 hours, for a
// 44-minute critical path, because every attempt of every app was taken
// to run into its deadline). The deploy must still cover the longest
// chain of apps that each use their sync and health timeouts once, with
// every retry (which follows only a quick failure: a failed sync or API
// call), so a slow deploy that is not stuck finishes; and it stays close
// to the chain weighted by one attempt's task deadline.
func TestExampleDeadlines(t *testing.T) {
	p := example(t)
	d, err := WorkflowDeadlines(p)
	if err != nil {
		t.Fatal(err)
	}
	// The answer key, independent of the budget functions: the per-task
	// deadlines the templates carry, and the retry policy spelt out.
	attempt := func(a *ir.App) time.Duration { return taskDeadline(t, syncValues(a)) }
	deleteAttempt := func(a *ir.App) time.Duration { return taskDeadline(t, deleteValues(a)) }
	withRetries := func(first, retry time.Duration, r ir.Retry) time.Duration {
		total, wait := first, r.Backoff
		for range r.Limit {
			total += min(wait, r.MaxBackoff) + retry
			wait *= time.Duration(r.Factor)
		}
		return total
	}
	syncChain := longestChain(p, func(a *ir.App) time.Duration {
		return withRetries(a.Timeouts.Sync+a.Timeouts.Health+callHeadroom, callHeadroom, a.Retry)
	})
	timeoutChain := longestChain(p, attempt)

	if d.Deploy < syncChain+deadlineMargin {
		t.Errorf("deploy deadline %v, below the longest chain of timeouts and retries (%v) plus the margin", d.Deploy, syncChain)
	}
	// Retries are quick failures and the other apps' share is at their
	// expected pace, so the deadline stays near the chain of task
	// deadlines. The old derivation was 4.4 times, then 3.3.
	if limit := timeoutChain * 5 / 4; d.Deploy > limit {
		t.Errorf("deploy deadline %v, above 1.25 times the timeout-weighted critical path %v (%v)", d.Deploy, timeoutChain, limit)
	}
	deleteChain := longestChain(p, func(a *ir.App) time.Duration {
		return withRetries(deleteAttempt(a), callHeadroom, a.Retry)
	})
	if d.Teardown < deleteChain+deadlineMargin {
		t.Errorf("teardown deadline %v, below the longest chain of delete timeouts and retries (%v) plus the margin", d.Teardown, deleteChain)
	}
	// One attempt of each of the teardown task's steps, inspect and the
	// delete, after the snapshots (the example offers snapshot to every
	// app): find-claims, whose every failure is retried (three attempts,
	// 10s and 20s apart), then the slowest snapshot.
	var worst time.Duration
	for _, a := range p.Apps {
		worst = max(worst, a.Teardown.Timeout)
	}
	find := 3*findClaimsDeadline(len(p.Apps)) + 30*time.Second
	stepsChain := find + worst + longestChain(p, func(a *ir.App) time.Duration {
		return inspectDeadline + deleteAttempt(a)
	})
	if limit := stepsChain * 2; d.Teardown > limit {
		t.Errorf("teardown deadline %v, above twice the chain of one attempt per step %v (%v)", d.Teardown, stepsChain, limit)
	}
	t.Logf("deploy %v (chain of timeouts %v, with retries %v); teardown %v (chain of steps %v, of deletes with retries %v)",
		d.Deploy, timeoutChain, syncChain, d.Teardown, stepsChain, deleteChain)
}

// taskDeadline is the "deadline" a task passes to its template.
func taskDeadline(t *testing.T, v map[string]string) time.Duration {
	t.Helper()
	s, err := strconv.Atoi(v["deadline"])
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(s) * time.Second
}

// longestChain is the heaviest dependency chain of p under w, found the
// plain way: p.Apps lists every app after its dependencies. A chain of
// teardown, the reverse graph, weighs the same.
func longestChain(p *ir.Program, w func(*ir.App) time.Duration) time.Duration {
	finish := map[*ir.App]time.Duration{}
	var longest time.Duration
	for _, a := range p.Apps {
		var start time.Duration
		for _, dep := range a.Deps {
			start = max(start, finish[dep.App])
		}
		finish[a] = start + w(a)
		longest = max(longest, finish[a])
	}
	return longest
}
