package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// deploy is RFC 7.2's deploy: validate, determine the current state,
// bootstrap if the orchestration primitives are absent, delete the
// Applications of removed apps when PRUNE=true allows it, run the deploy
// workflow, verify final health, report. Applications of removed apps
// left behind make an otherwise successful deploy partial (2).
func (r *run) deploy(ctx context.Context) int {
	code := r.deployApps(ctx)
	if n := len(r.rep.BootstrapDrift); n > 0 && !r.driftRefused && r.driftNote != "" && r.rep.Summary != "" {
		// Drift that blocks nothing only warns: the apps in scope are not
		// affected, but the operator must know the bootstrap is behind.
		r.rep.Summary += fmt.Sprintf("; %s (%s) between what the bootstrap installed and what the platform compiles to (%s)",
			english.Count(n, "difference"), driftKindList(r.rep.BootstrapDrift), r.driftNote)
	}
	if len(r.rep.Reconciled) > 0 && !r.driftRefused && r.rep.Summary != "" {
		r.rep.Summary = fmt.Sprintf("ran the bootstrap again to reconcile %s; %s", driftKindList(r.rep.Reconciled), r.rep.Summary)
	}
	if n := r.rep.Metrics["pruned"]; n > 0 && r.rep.Summary != "" {
		r.rep.Summary = fmt.Sprintf("deleted the Applications of %s first; %s", english.Count(n, "removed app"), r.rep.Summary)
	}
	return r.removalOutcome(code, "partial")
}

// deployApps is deploy without what removed apps add to the outcome.
func (r *run) deployApps(ctx context.Context) int {
	perms := append(basePermissions(), r.workflowPermissions(DeployTemplate)...)
	perms = append(perms, r.appPermissions()...)
	perms = append(perms, driftPermissions(r.cfg.Program.Platform.ArgoCD.Namespace)...)
	perms = append(perms, r.redeployPermissions(false)...)
	perms, dests := r.destinationCheck(perms)
	opts := r.clusterOptions(perms, DeployTemplate)
	opts.Adopted = adopted(r.cfg.ScopeApps)
	opts.Destinations = dests
	opts.DestinationsNeed = "an Application for a cluster Argo CD does not know never syncs"
	cr, code := r.phase0(ctx, true, opts)
	if code != exitcode.OK {
		return code
	}
	apps := r.cfg.ScopeApps

	r.phase = "state"
	bootstrapped := !cr.ArgoCD.Installed || !cr.Workflows.Installed
	// changed: this run wrote to the cluster since Phase 0 (a bootstrap,
	// a redeploy restored, a prune), so what Phase 0 read of the
	// Applications no longer stands for them.
	changed := bootstrapped
	if bootstrapped {
		if code := r.bootstrap(ctx, cr); code != exitcode.OK {
			return code
		}
		if r.cfg.DryRun {
			return exitcode.OK
		}
	}

	// A deploy of the same scope already running is followed, not
	// raced: the platform is in flux until it ends.
	cur, err := r.running(ctx)
	if err != nil {
		r.rep.Summary = fmt.Sprintf("cannot list workflows: %s", r.client.Explain(err))
		return exitcode.Failure
	}
	// What a bootstrap that just ran installed is the compiled platform;
	// otherwise it may be day 0's. Compared on every deploy before
	// anything is pruned or submitted, and before the convergence check:
	// Healthy means little while Argo CD judges a kind by another rule.
	if !bootstrapped {
		dc := r.reportBootstrap(ctx, apps)
		switch {
		case len(dc.Drift) == 0:
		case cur != nil:
			// The running deploy is followed, not raced; the next deploy
			// reconciles.
			r.driftNote = "not reconciled while a deploy runs"
			r.recommendDrift(dc)
			if blocking := blockingOf(dc.Drift); len(blocking) > 0 {
				r.log.Warnf(r.phase, "bootstrap-drift", "a deploy already running is followed, but its apps may be judged by stale health rules or refused: %s", driftKinds(blocking))
			}
		case !dc.Owned && !dc.OwnedUnknown:
			r.driftNote = "not reconciled: this Argo CD was not installed by platc's bootstrap"
			r.recommendDrift(dc)
			if blocking := blockingOf(dc.Drift); len(blocking) > 0 {
				return r.refuseDrift(blocking)
			}
		default:
			changed = true
			after, code, done := r.reconcileBootstrap(ctx, apps, dc)
			if done {
				return code
			}
			r.driftNote = "still, after the bootstrap ran again"
			if blocking := blockingOf(after.Drift); len(blocking) > 0 {
				return r.refuseDrift(blocking)
			}
			// The bootstrap may have taken minutes: a run started
			// meanwhile (by the push sensor) is followed, not doubled.
			if cur, err = r.running(ctx); err != nil {
				r.rep.Summary = fmt.Sprintf("cannot list workflows: %s", r.client.Explain(err))
				return exitcode.Failure
			}
		}
	}
	// What a teardown switched off so nothing would redeploy comes back
	// with the first deploy after it.
	restored, err := r.restoreRedeploy(ctx)
	r.rep.Restored = restored
	changed = changed || len(restored) > 0
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	removed, err := r.readRemoved(ctx)
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	r.reportRemoved(removed, removedLeft, nil)
	hint := "; PRUNE=true deletes it"
	if r.cfg.Prune {
		hint = ""
	}
	for _, ra := range removed {
		r.log.Warnf(r.phase, ra.Application, "Application of app %s, which is no longer in the platform%s", orText(ra.App, "unknown"), hint)
	}
	if len(removed) > 0 && r.cfg.Prune {
		switch {
		case cur != nil:
			r.log.Warnf(r.phase, "prune", "a deploy is already running; the Applications of removed apps are deleted by the next deploy with PRUNE=true, not while it runs")
		case !r.cfg.Scope.Whole():
			r.log.Warnf(r.phase, "prune", "PRUNE=true deletes removed apps only in a deploy of the whole platform, not of scope %s", r.cfg.Scope)
		default:
			r.phase = "prune"
			changed = true
			if code := r.prune(ctx, removed); code != exitcode.OK {
				return code
			}
			r.phase = "state"
		}
	}
	var pending []string
	status := map[string]appStatus{}
	if cur == nil {
		var done bool
		if status, pending, done, code = r.pending(ctx, apps, !changed); done {
			return code
		}
	}

	r.phase = "orchestration"
	if cur == nil && r.cfg.Scope.Kind == config.ScopePlatform {
		r.checkDrift(ctx, DeployTemplate)
	}
	var params map[string]string
	if cur == nil {
		params = r.resumeArguments(ctx, apps, status)
	}
	wf, attached, code := r.launch(ctx, DeployTemplate, params, cur)
	if code != exitcode.OK || wf == nil {
		return code
	}
	if r.cfg.DryRun && attached {
		r.rep.Status = "dry-run"
		r.rep.Summary = fmt.Sprintf("Phase 0 passed; deploy workflow %s/%s is already running, and a real run would follow it", wf.Namespace, wf.Name)
		return exitcode.OK
	}
	if r.cfg.DryRun {
		r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("deploy %d %s not yet converged, in dependency order: %s", len(pending), english.Plural(len(pending), "app"), english.List(pending)))
		r.rep.Status = "dry-run"
		r.rep.Summary = fmt.Sprintf("Phase 0 passed; a real run would submit the deploy workflow for %d %s", len(pending), english.Plural(len(pending), "app"))
		r.components(apps, nil, status)
		return exitcode.OK
	}
	res := r.followAndRecord(ctx, wf, apps, attached)

	r.phase = "verification"
	final, err := r.readApps(ctx, apps)
	if err != nil {
		r.log.Warnf(r.phase, "platform", "%s", err)
		final = map[string]appStatus{}
	}
	r.components(apps, res.Nodes, final)
	r.stepFailures(res.Others)
	return r.deployOutcome(res, apps, final)
}

// refuseDrift ends a deploy that must not start: Argo CD would judge a
// kind by a rule other than the platform's (an app Healthy before its
// resource is ready, its dependents started too early: INV-7), or refuse
// an app whose repository its project does not allow. Like a blocking
// Phase 0 finding, the cluster is not ready for the deploy: exit 1. A dry
// run says the same, since the real run would stop here.
func (r *run) refuseDrift(blocking []Drift) int {
	what := "refused to start the deploy workflow"
	if r.cfg.DryRun {
		what = "a real run would refuse to start the deploy workflow"
		r.rep.Status = "dry-run"
	}
	r.rep.Summary = fmt.Sprintf("%s: %s", what, driftKinds(blocking))
	r.driftRefused = true
	return exitcode.Failure
}

// pending reads the apps in scope and lists those not yet Synced and
// Healthy. done means the deploy ends here with code: the state could
// not be read, or (RFC 7.3) every app has converged, and a deploy of a
// deployed, healthy platform creates nothing, not even a Workflow.
// Unchanged says the run wrote nothing since Phase 0, whose list of the
// Applications then serves (readAppsOnce).
func (r *run) pending(ctx context.Context, apps []*ir.App, unchanged bool) (status map[string]appStatus, pending []string, done bool, code int) {
	status, err := r.readAppsOnce(ctx, apps, unchanged)
	if err != nil {
		r.rep.Summary = err.Error()
		return nil, nil, true, exitcode.Failure
	}
	for _, a := range apps {
		if st := status[a.Name]; !st.skippable() {
			pending = append(pending, a.Name)
			if st.Stale != "" && st.Health == "Healthy" && st.Sync == "Synced" {
				r.log.Infof(r.phase, a.Name, "Synced and Healthy, but not current: %s", st.Stale)
			}
		}
	}
	if len(pending) == 0 {
		r.log.Infof(r.phase, "platform", "every app in scope is already Synced and Healthy; nothing to do")
		r.components(apps, nil, status)
		r.rep.Status = "succeeded"
		r.rep.Summary = fmt.Sprintf("all %d %s in scope already Synced and Healthy; nothing changed", len(apps), english.Plural(len(apps), "app"))
		if r.rep.Metrics["pruned"] > 0 {
			r.rep.Summary = strings.TrimSuffix(r.rep.Summary, "nothing changed") + "nothing else changed"
		}
		r.rep.Metrics["converged"] = len(apps)
		return status, nil, true, exitcode.OK
	}
	r.log.Infof(r.phase, "platform", "%d of %d apps are not yet Synced and Healthy: %s", len(pending), len(apps), english.List(pending))
	return status, pending, false, exitcode.OK
}

// resumeArguments are the deploy workflow's arguments that skip, without
// a pod, the tasks of the apps in scope with nothing to do (skippable:
// the step's own rule), the waits for resources whose app has nothing to
// do and that are Healthy by the wait step's rule (judged as validate
// judges them), and a split deploy's children whose apps all have
// nothing to do (emit/argo, resume.go). Nil when none is skipped.
func (r *run) resumeArguments(ctx context.Context, apps []*ir.App, status map[string]appStatus) map[string]string {
	p := r.cfg.Program
	var o *argo.Objects
	if r.cfg.Scope.Kind == config.ScopePlatform {
		var err error
		if o, err = r.emitted().Objects(); err != nil {
			// Not fatal: without the arguments every app runs its step,
			// which finds nothing to do.
			r.log.Warnf(r.phase, "workflow", "cannot compile the deploy workflow to skip converged apps: %v", err)
			return nil
		}
	}
	judge := r.resourceJudge(ctx)
	var ready []string
	readyFn := func(res *ir.Resource) bool {
		// Asked only for a resource whose app has nothing to do.
		rh := judge(res.App, res, status[res.App.Name])
		if rh.Health != "Healthy" {
			r.log.Infof(r.phase, res.App.Name, "resource %s is %s: its wait runs", rh.Resource, orText(rh.Health, "not checked"))
			return false
		}
		ready = append(ready, res.TaskName())
		return true
	}
	args := argo.ConvergedArguments(p, o, func(a *ir.App) bool { return status[a.Name].skippable() }, readyFn)
	if args != nil {
		n := 0
		for _, a := range apps {
			if status[a.Name].skippable() {
				n++
			}
		}
		r.log.Infof(r.phase, "platform", "%d of %d apps have nothing to do: their tasks are skipped, without a pod", n, len(apps))
		if len(ready) > 0 {
			r.log.Infof(r.phase, "platform", "%s skipped, without a pod: %s Healthy and %s nothing to do: %s",
				english.Count(len(ready), "resource wait"), english.Agree(len(ready), "its resource is", "their resources are"),
				english.Agree(len(ready), "its app has", "their apps have"), english.List(ready))
		}
	}
	return args
}

// adopted lists the apps of scope without a source, whose Applications
// must exist before the deploy waits for them.
func adopted(scope []*ir.App) []preflight.Adopted {
	var out []preflight.Adopted
	for _, a := range scope {
		if a.Source == nil {
			out = append(out, preflight.Adopted{App: a.Name, Application: a.Application})
		}
	}
	return out
}

// destinationCheck is what Phase 0 needs to check that Argo CD knows
// the declared clusters the apps in scope deploy to: the clusters, and
// perms with the permission to list Argo CD's cluster Secrets, asked
// only when an app in scope deploys to another cluster, since those
// Secrets hold the clusters' credentials. Deploy, validate and teardown
// all run it.
func (r *run) destinationCheck(perms []preflight.Permission) ([]preflight.Permission, []preflight.Destination) {
	dests := destinations(r.cfg.ScopeApps)
	if len(dests) > 0 {
		perms = append(perms, preflight.Permission{Verb: "list", Resource: "secrets", Namespace: r.cfg.Program.Platform.ArgoCD.Namespace,
			Why: "to check Argo CD knows the clusters apps deploy to (its cluster Secrets)"})
	}
	return perms, dests
}

// destinations lists the declared clusters the apps of scope with a
// source deploy to, by name, each with its apps.
func destinations(scope []*ir.App) []preflight.Destination {
	var out []preflight.Destination
	at := map[*ir.Cluster]int{}
	for _, a := range scope {
		cl := a.Destination.Cluster
		if a.Source == nil || cl == nil {
			continue
		}
		i, ok := at[cl]
		if !ok {
			i = len(out)
			at[cl] = i
			out = append(out, preflight.Destination{Name: cl.Name, Server: cl.Server})
		}
		out[i].Apps = append(out[i].Apps, a.Name)
	}
	slices.SortFunc(out, func(a, b preflight.Destination) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// deployOutcome decides the exit code from how the workflow ended and what
// the Applications say now.
func (r *run) deployOutcome(res followResult, apps []*ir.App, final map[string]appStatus) int {
	rep := r.rep
	wfName := res.WF.Namespace + "/" + res.WF.Name
	converged := 0
	for _, a := range apps {
		if final[a.Name].converged() {
			converged++
		}
	}
	rep.Metrics["converged"] = converged
	switch {
	case errors.Is(res.Err, context.Canceled):
		return r.interrupted(wfName)
	case res.Err != nil:
		rep.Summary = res.Err.Error()
		rep.recommend("Run platc deploy again once the API server is reachable: it follows workflow %s if it is still running.", wfName)
		return exitcode.Failure
	case res.Gone:
		rep.Summary = fmt.Sprintf("workflow %s was deleted while platc followed it", wfName)
		rep.recommend("Run platc deploy again; apps already Synced and Healthy are skipped.")
		return exitcode.Failure
	case res.TimedOut:
		rep.Status = "timeout"
		rep.Summary = fmt.Sprintf("workflow %s did not finish within %s; %d of %d apps converged so far", wfName, human(r.limit), converged, len(apps))
		rep.recommend("Workflow %s is still running. Run platc deploy again to follow it, or set ACTION_TIMEOUT longer.", wfName)
		return exitcode.Timeout
	}
	r.recommendFailures(wfName)
	switch res.WF.Status.Phase {
	case wfv1.WorkflowSucceeded:
		if converged == len(apps) {
			rep.Summary = fmt.Sprintf("workflow %s succeeded; all %d %s Synced and Healthy", wfName, len(apps), english.Plural(len(apps), "app"))
			return exitcode.OK
		}
		var bad []string
		for _, a := range apps {
			if s := final[a.Name]; !s.converged() {
				_, why := s.verdict()
				if why == "" {
					why = "not Synced and Healthy"
				}
				bad = append(bad, fmt.Sprintf("%s (%s)", a.Name, why))
				rep.Failures = append(rep.Failures, Failure{App: a.Name, Message: "after the workflow succeeded, " + why})
			}
		}
		rep.Summary = fmt.Sprintf("workflow %s succeeded but final health verification failed for %s", wfName, english.List(bad))
		rep.recommend("An app turned unhealthy after its step succeeded; check it with 'argocd app get', then run platc validate.")
		if converged > 0 {
			return exitcode.Partial
		}
		return exitcode.Failure
	}
	// Failed or Error.
	if timedOut(res.WF) {
		rep.Status = "timeout"
		rep.Summary = fmt.Sprintf("workflow %s ran out of time (its activeDeadlineSeconds); %d of %d apps converged", wfName, converged, len(apps))
		rep.recommend("Raise platform.workflows.timeout (or the slow apps' timeouts), rebuild, and run platc deploy again; converged apps are skipped.")
		return exitcode.Timeout
	}
	done := rep.Metrics["succeeded"] + rep.Metrics["skipped"]
	rep.Summary = fmt.Sprintf("workflow %s %s: %d of %d apps deployed, %d failed, %d not run",
		wfName, strings.ToLower(string(res.WF.Status.Phase)), done, len(apps), rep.Metrics["failed"], rep.Metrics["omitted"])
	if done > 0 || converged > 0 {
		rep.Status = "partial"
		return exitcode.Partial
	}
	return exitcode.Failure
}

func (r *run) recommendFailures(wfName string) {
	ns, name, _ := strings.Cut(wfName, "/")
	for _, f := range r.rep.Failures {
		if f.Step != "" {
			r.rep.recommend("Step %s failed: read its log ('argo logs -n %s %s'). A failed check of a dependency outside TARGET_SCOPE means that app is not Healthy: deploy it first, or widen the scope.", f.Step, ns, name)
			continue
		}
		a := r.cfg.Program.App(f.App)
		if a == nil {
			continue
		}
		r.rep.recommend("Look at %s: 'argocd app get %s' and the step's log ('argo logs -n %s %s'); fix the cause, then run platc %s again: finished apps are skipped, so the run continues from the failure.",
			f.App, a.Application, ns, name, r.cfg.Action)
	}
}

// components fills the per-app lines, failures and metrics from the
// workflow's nodes (nil when no workflow ran) and the Applications.
func (r *run) components(apps []*ir.App, nodes map[string]nodeState, status map[string]appStatus) {
	m := r.rep.Metrics
	for _, a := range apps {
		s := status[a.Name]
		c := Component{App: a.Name, Stack: stackOf(a), Application: a.Application, Health: s.Health, Sync: s.Sync}
		n, ran := nodes[a.Name]
		switch {
		case nodes == nil && s.converged():
			c.Status = "converged"
		case nodes == nil:
			c.Status = "pending"
			_, c.Message = s.verdict()
		case !ran:
			c.Status = "not-started"
			m["not_started"]++
		default:
			c.Status = strings.ToLower(string(n.Phase))
			c.StartedAt, c.FinishedAt = n.StartedAt, n.FinishedAt
			if !n.FinishedAt.IsZero() {
				c.Duration = n.FinishedAt.Sub(n.StartedAt).Round(1e9).Seconds()
			}
			switch n.Phase {
			case wfv1.NodeSucceeded:
				m["succeeded"]++
			case wfv1.NodeSkipped:
				m["skipped"]++
				if s.converged() {
					c.Message = "already Synced and Healthy: skipped, no pod ran"
				}
			case wfv1.NodeRunning, wfv1.NodePending:
				m["running"]++
			case wfv1.NodeOmitted:
				m["omitted"]++
				c.Message = "not run: " + r.blockers(a, nodes)
			case wfv1.NodeFailed, wfv1.NodeError:
				m["failed"]++
				c.Message = orText(n.Message, "no message from the workflow")
				r.rep.Failures = append(r.rep.Failures, Failure{App: a.Name, Node: n.Node, Message: c.Message})
			}
		}
		if c.Message == "" && s.Message != "" && !s.converged() {
			c.Message = s.Message
		}
		r.rep.Components = append(r.rep.Components, c)
	}
}

// blockers names the dependencies of an omitted app that did not succeed.
func (r *run) blockers(a *ir.App, nodes map[string]nodeState) string {
	var names []string
	for _, d := range a.Deps {
		switch nodes[d.App.Name].Phase {
		case wfv1.NodeSucceeded, wfv1.NodeSkipped:
		default:
			names = append(names, d.App.Name)
		}
	}
	if len(names) == 0 && len(a.ResourceDeps) > 0 {
		// Every app it depends on succeeded: a resource wait failed (its
		// step is among the failures, with the reason).
		refs := make([]string, len(a.ResourceDeps))
		for k, rd := range a.ResourceDeps {
			refs[k] = rd.Resource.Ref()
		}
		return fmt.Sprintf("a resource it waits for was not ready (%s; see the failed wait step)", english.List(refs))
	}
	if len(names) == 0 {
		return "a dependency did not succeed"
	}
	return fmt.Sprintf("%s did not succeed", english.List(names))
}

// launch attaches to cur, a run of the same action and scope still in
// progress, or builds and submits a new workflow. In a dry run the API
// server validates the workflow and stores nothing.
func (r *run) launch(ctx context.Context, template string, params map[string]string, cur *wfv1.Workflow) (*wfv1.Workflow, bool, int) {
	if cur != nil {
		r.log.Infof(r.phase, "workflow", "workflow %s/%s of this platform and scope is already %s; following it instead of starting another",
			cur.Namespace, cur.Name, orText(string(cur.Status.Phase), "pending"))
		if r.cfg.DryRun {
			r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("follow workflow %s/%s, already in progress", cur.Namespace, cur.Name))
			return cur, true, exitcode.OK
		}
		return cur, true, exitcode.OK
	}
	wf, err := r.build(template, params)
	if err != nil {
		r.rep.Summary = err.Error()
		return nil, false, exitcode.Failure
	}
	stamp(wf, r.cfg, r.env.Trace)
	created, err := r.submit(ctx, wf, r.cfg.DryRun)
	if err != nil {
		r.rep.Summary = fmt.Sprintf("submitting the %s workflow failed: %s", r.cfg.Action, r.client.Explain(err))
		return nil, false, exitcode.Failure
	}
	if r.cfg.DryRun {
		what := fmt.Sprintf("from WorkflowTemplate %s/%s", wf.Namespace, template)
		if wf.Spec.WorkflowTemplateRef == nil {
			what = fmt.Sprintf("compiled for scope %s", r.cfg.Scope)
		}
		r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("submit a Workflow %s in namespace %s (the API server accepted it in a server-side dry run)", what, wf.Namespace))
		r.log.Infof(r.phase, "workflow", "dry run: the API server accepts the %s workflow; not submitted", r.cfg.Action)
		return created, false, exitcode.OK
	}
	r.log.Infof(r.phase, "workflow", "submitted workflow %s/%s", created.Namespace, created.Name)
	return created, false, exitcode.OK
}

// build returns the workflow for the action: the generated template for
// the whole platform, a workflow compiled now for a stack or app scope.
func (r *run) build(template string, params map[string]string) (*wfv1.Workflow, error) {
	if r.cfg.Scope.Kind == config.ScopePlatform {
		return platformWorkflow(r.cfg, template, params), nil
	}
	return scopedWorkflow(r.cfg, params)
}

// ownDeadline is the activeDeadlineSeconds this source compiles the
// action's workflow to: the generated template's, or the scoped
// workflow's. Never the followed Workflow's own, which whoever created it
// chose (one of 285 years kept deploy waiting without end; issue 21).
func (r *run) ownDeadline() *int64 {
	if r.cfg.Scope.Kind == config.ScopePlatform {
		t, err := r.generatedTemplate(r.actionTemplate())
		if err != nil {
			r.log.Warnf(r.phase, "workflow", "cannot compute the workflow's deadline: %v", err)
			return nil
		}
		return t.Spec.ActiveDeadlineSeconds
	}
	wf, err := scopedWorkflow(r.cfg, nil)
	if err != nil {
		r.log.Warnf(r.phase, "workflow", "cannot compute the workflow's deadline: %v", err)
		return nil
	}
	return wf.Spec.ActiveDeadlineSeconds
}

// stepFailures adds the failed steps that are not app tasks (a scoped
// workflow's dependency checks, teardown's confirmation) to the failures.
func (r *run) stepFailures(others []nodeState) {
	for _, o := range others {
		r.rep.Failures = append(r.rep.Failures, Failure{Step: o.App, Node: o.Node, Message: orText(o.Message, "no message from the workflow")})
	}
}
