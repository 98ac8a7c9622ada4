package argo

import (
	"slices"
	"strconv"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/satmath"
)

// Per-app inputs of the ClusterTemplate templates, in the order they are
// declared and passed. The first, the Application's name, is required;
// the others default to the value most apps of the platform use, and a
// task passes only the values that differ. That keeps each task small,
// which matters for large platforms: a WorkflowTemplate is one etcd
// object.
var (
	syncInputs = []string{
		"application", "project", "expect-revision", "sync-timeout", "health-timeout",
		"deadline", "retry-limit", "retry-backoff", "retry-factor", "retry-cap",
		"auto-sync", "self-heal", "prune",
	}
	deleteInputs = []string{
		"application", "project", "volumes", "timeout",
		"deadline", "retry-limit", "retry-backoff", "retry-factor", "retry-cap",
	}
	checkInputs  = []string{"application"}
	absentInputs = []string{"application", "project"}
)

// callHeadroom bounds the argocd calls of a step that have no --timeout
// of their own (each is capped at 300s by the scripts' argocd_call), plus
// pod start-up.
const callHeadroom = 6 * time.Minute

// syncValues are an app's sync-and-wait inputs.
func syncValues(a *ir.App) map[string]string {
	in := SyncInputOf(a)
	v := map[string]string{
		"application":     a.Application,
		"project":         a.Project,
		"expect-revision": in.ExpectRevision,
		"sync-timeout":    seconds(a.Timeouts.Sync),
		"health-timeout":  seconds(a.Timeouts.Health),
		// Per attempt: refresh, waiting out a running operation (up to the
		// sync timeout), the sync, and the wait for health.
		"deadline": seconds(2*a.Timeouts.Sync + a.Timeouts.Health + callHeadroom),
		// The steady-state sync policy (ir.App.Sync), switched on by the
		// step once the app has converged.
		"auto-sync": bool01(in.AutoSync),
		"self-heal": bool01(in.SelfHeal),
		"prune":     bool01(in.Prune),
	}
	retryValues(v, a.Retry)
	return v
}

// deleteValues are an app's delete-and-wait inputs.
func deleteValues(a *ir.App) map[string]string {
	v := map[string]string{
		"application": a.Application,
		"project":     a.Project,
		"volumes":     string(a.Teardown.Volumes),
		"timeout":     seconds(a.Teardown.Timeout),
		// The delete itself, plus the lookups and patches before it.
		"deadline": seconds(a.Teardown.Timeout + 2*callHeadroom),
	}
	retryValues(v, a.Retry)
	return v
}

func retryValues(v map[string]string, r ir.Retry) {
	v["retry-limit"] = strconv.Itoa(r.Limit)
	v["retry-backoff"] = ir.FormatDuration(r.Backoff)
	v["retry-factor"] = strconv.Itoa(max(r.Factor, 1))
	v["retry-cap"] = ir.FormatDuration(r.MaxBackoff)
}

// syncBudget is what the workflow deadline allows an app's deploy task on
// the chain that sets it. A step fails at once, without retry, on
// Degraded or Unknown health and when its health timeout expires (a
// retry cannot change that state); it retries only a failed sync
// operation or a failed argocd call, which fail quickly. So one attempt
// may use its sync and health timeouts in full, and every retry costs
// its backoff plus the call headroom. The task's own deadline (2*sync:
// it may first wait out an operation someone else started) stays the
// per-attempt bound.
//
// An app's resource waits run before it, side by side: the longest adds
// its whole worst case.
func syncBudget(a *ir.App) time.Duration {
	full := a.Timeouts.Sync + a.Timeouts.Health + callHeadroom
	var wait time.Duration
	for _, rd := range a.ResourceDeps {
		wait = max(wait, worstCase(rd.Resource.Timeout+callHeadroom, fixedRetryPolicy))
	}
	return satmath.Add(satmath.Add(full, retries(callHeadroom, a.Retry)), wait)
}

// teardownBudget is the same for an app's delete-and-wait task: inspect
// (its deadline once) and the delete, whose wait for the Application to
// go may use the delete timeout once; retries of either follow quick
// failures. Snapshots come before the DAG (snapshotBudget).
func teardownBudget(a *ir.App) time.Duration {
	inspect := satmath.Add(inspectDeadline, retries(callHeadroom, a.Retry))
	del := satmath.Add(a.Teardown.Timeout+2*callHeadroom, retries(callHeadroom, a.Retry))
	return satmath.Add(inspect, del)
}

// retries is what r's retries add after a first attempt: each one's
// backoff, growing by Factor up to MaxBackoff, and an attempt of at most
// attempt.
func retries(attempt time.Duration, r ir.Retry) time.Duration {
	return satmath.Add(satmath.Mul(attempt, int64(r.Limit)), backoffs(r))
}

// worstCase is every attempt running into its deadline, with the backoff
// between attempts: the bound of steps whose every failure is retried.
func worstCase(attempt time.Duration, r ir.Retry) time.Duration {
	return satmath.Add(attempt, retries(attempt, r))
}

// backoffs is the sum of r's waits between attempts, growing by Factor
// up to MaxBackoff.
func backoffs(r ir.Retry) time.Duration {
	var total time.Duration
	wait := r.Backoff
	for range r.Limit {
		if r.MaxBackoff > 0 && wait > r.MaxBackoff {
			wait = r.MaxBackoff
		}
		total = satmath.Add(total, wait)
		wait = satmath.Mul(wait, int64(max(r.Factor, 1)))
	}
	return total
}

// expectRevision is the revision Argo CD reports in status.sync.revision
// when the app is at what platc generated: the chart version of a Helm
// chart source, or a Git target revision pinned to a full commit. For a
// branch or tag it is empty: get --refresh has just resolved the branch or
// tag again, so Synced already means "at its current commit".
func expectRevision(a *ir.App) string {
	s := a.Source
	switch {
	case s == nil:
		return ""
	case len(a.Sources) > 1:
		// Argo CD reports the revisions of several sources in
		// status.sync.revisions, and status.sync.revision stays empty.
		return ""
	case s.IsChart():
		return s.Version
	case ir.IsFullCommit(s.TargetRevision):
		return s.TargetRevision
	}
	return ""
}

// seconds renders a duration as whole seconds, at least 1: the form the
// argocd CLI's --timeout and coreutils timeout take.
func seconds(d time.Duration) string {
	return strconv.FormatInt(max(int64((d+time.Second-1)/time.Second), 1), 10)
}

// defaults holds, for each template, the default of each optional input:
// the value most apps use (ties go to the smallest string, so the choice
// is deterministic).
type defaults struct {
	sync, del map[string]string
}

func newDefaults(apps []*ir.App) defaults {
	return defaults{
		sync: modes(apps, syncInputs[1:], syncValues),
		del:  modes(apps, deleteInputs[1:], deleteValues),
	}
}

func modes(apps []*ir.App, names []string, values func(*ir.App) map[string]string) map[string]string {
	counts := make([]map[string]int, len(names))
	for i := range counts {
		counts[i] = map[string]int{}
	}
	for _, a := range apps {
		v := values(a)
		for i, n := range names {
			counts[i][v[n]]++
		}
	}
	out := make(map[string]string, len(names))
	for i, n := range names {
		keys := make([]string, 0, len(counts[i]))
		for k := range counts[i] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		best := ""
		for j, k := range keys {
			if j == 0 || counts[i][k] > counts[i][best] {
				best = k
			}
		}
		out[n] = best
	}
	return out
}

// inputParams declares a template's per-app inputs: the first required,
// the others with their defaults.
func inputParams(names []string, defs map[string]string) []wfv1.Parameter {
	ps := []wfv1.Parameter{{Name: names[0]}}
	for _, n := range names[1:] {
		ps = append(ps, wfv1.Parameter{Name: n, Default: wfv1.AnyStringPtr(defs[n])})
	}
	return ps
}

// args passes an app's values for names, leaving out those equal to the
// template's defaults.
func args(names []string, values, defs map[string]string) wfv1.Arguments {
	var ps []wfv1.Parameter
	for i, n := range names {
		if i > 0 && values[n] == defs[n] {
			continue
		}
		ps = append(ps, wfv1.Parameter{Name: n, Value: wfv1.AnyStringPtr(values[n])})
	}
	return wfv1.Arguments{Parameters: ps}
}

// fromInput is a reference to one of a template's input parameters.
func fromInput(name string) string { return "{{inputs.parameters." + name + "}}" }
