package step

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"
)

// Exit codes of sync-and-wait (RFC 5.3). The template's
// retryStrategy.expression retries every code but ExitNotRetried.
const (
	ExitOK = 0
	// ExitRetry is a failure a retry can fix: a failed sync operation, a
	// failed or refused API call, an operation that outlived the sync
	// timeout.
	ExitRetry = 1
	// ExitNotRetried is a failure a retry cannot fix: the app is Degraded
	// or Unknown, or still not Synced and Healthy when its health timeout
	// ends (waiting again would watch the same state), or the step was
	// given settings it cannot run with.
	ExitNotRetried = 10
)

// SyncInput is one sync-and-wait task's inputs (the template's
// environment).
type SyncInput struct {
	App string
	// ExpectRevision, when set, is the revision a converged app reports
	// in status.sync.revision (emit/argo expectRevision).
	ExpectRevision string
	SyncTimeout    time.Duration
	HealthTimeout  time.Duration
	// AutoSync switches automated sync on, with SelfHeal and Prune, once
	// the app has converged: the platform's sync block asks for it.
	AutoSync, SelfHeal, Prune bool
}

// SyncInputFromEnv reads SyncInput from the variables the template sets.
func SyncInputFromEnv(getenv func(string) string) (SyncInput, error) {
	in := SyncInput{App: getenv("APP"), ExpectRevision: getenv("EXPECT_REVISION")}
	if in.App == "" {
		return in, errors.New("APP is not set")
	}
	// The name goes into a URL path: only what Kubernetes allows an
	// object's name, so it can never name another path.
	if len(in.App) > 253 || !objectName.MatchString(in.App) {
		return in, fmt.Errorf("APP=%q is not a valid Application name (lower-case letters, digits, '-' and '.')", in.App)
	}
	var err error
	if in.SyncTimeout, err = seconds(getenv, "SYNC_TIMEOUT"); err != nil {
		return in, err
	}
	if in.HealthTimeout, err = seconds(getenv, "HEALTH_TIMEOUT"); err != nil {
		return in, err
	}
	for _, b := range []struct {
		name string
		to   *bool
	}{{"AUTO_SYNC", &in.AutoSync}, {"SELF_HEAL", &in.SelfHeal}, {"PRUNE", &in.Prune}} {
		switch v := getenv(b.name); v {
		case "", "false":
		case "true":
			*b.to = true
		default:
			return in, fmt.Errorf("%s=%q: want true or false", b.name, v)
		}
	}
	return in, nil
}

var objectName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func seconds(getenv func(string) string, name string) (time.Duration, error) {
	v := getenv(name)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q: want a whole number of seconds", name, v)
	}
	return time.Duration(n) * time.Second, nil
}

// SyncAndWait converges one Application and waits until it is Synced and
// Healthy, then switches on its automated sync when in.AutoSync. It is
// idempotent (INV-6): an Application already Synced and Healthy at the
// expected revision, whose last operation did not fail, is not synced
// again, so its hooks do not run again. It writes what it does to out
// and returns the step's exit code.
//
// The calls: a get with refresh; a sync; a watch until the operation has
// finished; a get with refresh (the health from before the sync may still
// be there); a watch until Synced and Healthy. A converged app costs the
// first get only.
func SyncAndWait(ctx context.Context, c *Client, in SyncInput, out io.Writer) int {
	s := &syncer{c: c, in: in, out: out}
	return s.run(ctx)
}

type syncer struct {
	c   *Client
	in  SyncInput
	out io.Writer
}

func (s *syncer) say(format string, args ...any) {
	fmt.Fprintf(s.out, s.in.App+": "+format+"\n", args...)
}

// fail reports a failure a retry can fix.
func (s *syncer) fail(format string, args ...any) int {
	s.say(format, args...)
	return ExitRetry
}

func (s *syncer) run(ctx context.Context) int {
	app, err := s.c.Get(ctx, s.in.App, true)
	if err != nil {
		return s.fail("cannot read the Application: %v", err)
	}
	if app.operating() {
		s.say("an operation is in progress; waiting for it (at most %s)", s.in.SyncTimeout)
		if _, code := s.waitOperation(ctx, app.Metadata.ResourceVersion); code != ExitOK {
			return code
		}
		if app, err = s.c.Get(ctx, s.in.App, true); err != nil {
			return s.fail("cannot read the Application: %v", err)
		}
	}
	sync, health, rev, phase := app.Status.Sync.Status, app.Status.Health.Status, app.Status.Sync.Revision, app.phase()
	if app.Settled(s.in) {
		s.say("already Synced and Healthy at revision %s; nothing to do", or(rev, "unknown"))
		return s.autoSync(ctx, app)
	}
	if app.automated() != nil {
		// Automated sync was switched on earlier; syncing from here would
		// race Argo CD's own, so only wait.
		s.say("automated sync is on; waiting for Argo CD to converge it")
	} else {
		s.say("%s/%s at revision %s (last operation: %s); syncing", sync, health, or(rev, "unknown"), or(phase, "none"))
		started, err := s.c.Sync(ctx, s.in.App)
		if err != nil {
			return s.fail("the sync was refused: %v", err)
		}
		done, code := s.waitOperation(ctx, started.Metadata.ResourceVersion)
		if code != ExitOK {
			return code
		}
		if p := done.phase(); p != "Succeeded" {
			msg := ""
			if done.Status.OperationState != nil {
				msg = done.Status.OperationState.Message
			}
			return s.fail("the sync operation ended %s: %s", or(p, "without a phase"), or(msg, "no message"))
		}
		// The health written before the sync may still be there: compare
		// again before judging it.
		if app, err = s.c.Get(ctx, s.in.App, true); err != nil {
			return s.fail("cannot read the Application: %v", err)
		}
	}
	return s.waitHealthy(ctx, app)
}

// waitOperation watches the Application from resourceVersion on until no
// operation is requested or running, for at most the sync timeout, and
// returns it as it was then.
func (s *syncer) waitOperation(ctx context.Context, resourceVersion string) (*Application, int) {
	ctx, cancel := context.WithTimeout(ctx, s.in.SyncTimeout)
	defer cancel()
	app, err := s.watch(ctx, resourceVersion, func(a *Application) (bool, error) { return !a.operating(), nil })
	switch {
	case err == nil:
		return app, ExitOK
	case ctx.Err() != nil:
		// A retry waits for the same operation again, within the task's
		// deadline of twice the sync timeout.
		return nil, s.fail("the operation is still running after %s", s.in.SyncTimeout)
	default:
		return nil, s.fail("%v", err)
	}
}

// watch is Client.Watch, started again from the last version seen when
// the stream ends, until fn says done or ctx ends.
func (s *syncer) watch(ctx context.Context, resourceVersion string, fn func(*Application) (bool, error)) (*Application, error) {
	var last *Application
	for {
		app, err := s.c.Watch(ctx, s.in.App, resourceVersion, fn)
		if app != nil {
			last = app
			resourceVersion = app.Metadata.ResourceVersion
		}
		if !errors.Is(err, errWatchEnded) {
			return last, err
		}
		// Not at once: a server that ends every stream must not be
		// hammered.
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// waitHealthy judges app, then every change of it, until it is Synced and
// Healthy. Degraded or Unknown health, or the health timeout running out,
// ends the step at once with ExitNotRetried (RFC 5.3: Degraded halts,
// Unknown is a failure), as a retry would find the same state.
func (s *syncer) waitHealthy(ctx context.Context, app *Application) int {
	deadline := time.Now().Add(s.in.HealthTimeout)
	final := -1
	judge := func(a *Application) (bool, error) {
		sync, health := a.Status.Sync.Status, a.Status.Health.Status
		switch {
		case sync == "Synced" && health == "Healthy":
			s.say("Synced and Healthy")
			final = s.autoSync(ctx, a)
		case health == "Degraded" || health == "Unknown":
			msg := ""
			if m := a.Status.Health.Message; m != "" {
				msg = " (" + m + ")"
			}
			fmt.Fprintf(s.out, "%s: health is %s%s; not retried: a retry would find the same state. See argocd app get %s for the resources at fault.\n",
				s.in.App, health, msg, s.in.App)
			final = ExitNotRetried
		case !time.Now().Before(deadline):
			s.timedOut(a)
			final = ExitNotRetried
		}
		return final >= 0, nil
	}
	if done, _ := judge(app); done {
		return final
	}
	wctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	last, err := s.watch(wctx, app.Metadata.ResourceVersion, judge)
	switch {
	case final >= 0:
		return final
	case wctx.Err() != nil && ctx.Err() == nil:
		if last == nil {
			last = app
		}
		s.timedOut(last)
		return ExitNotRetried
	default:
		return s.fail("%v", err)
	}
}

func (s *syncer) timedOut(a *Application) {
	s.say("still %s/%s after %s (last operation: %s); not retried. Raise its health timeout if it needs longer.",
		or(a.Status.Sync.Status, "unknown"), or(a.Status.Health.Status, "unknown"), s.in.HealthTimeout, or(a.phase(), "none"))
}

// autoSync switches on the steady-state sync policy an app asks for, once
// it has converged, through the API server: RBAC allows update on exactly
// the apps whose sync block asks for automated sync. The root app ignores
// /spec/syncPolicy/automated in its children, so this is not reverted.
func (s *syncer) autoSync(ctx context.Context, app *Application) int {
	if app.autoSyncAsWanted(s.in) {
		return ExitOK
	}
	s.say("turning on automated sync (self-heal %t, prune %t)", s.in.SelfHeal, s.in.Prune)
	on := true
	patch := map[string]any{"spec": map[string]any{"syncPolicy": map[string]any{
		"automated": Automated{Enabled: &on, SelfHeal: s.in.SelfHeal, Prune: s.in.Prune},
	}}}
	if _, err := s.c.Patch(ctx, s.in.App, patch); err != nil {
		return s.fail("cannot turn on automated sync: %v", err)
	}
	return ExitOK
}
