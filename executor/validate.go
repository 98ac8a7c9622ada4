package executor

import (
	"context"
	"fmt"

	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// validate is RFC 7.2's validate: read-only. It reads every Application in
// scope and reports its health: exit 0 when all are healthy, 2 when some
// are degraded and none unhealthy, 1 when any is unhealthy. An Application
// left by an app removed from the platform makes a healthy platform
// degraded (2).
func (r *run) validate(ctx context.Context) int {
	return r.removalOutcome(r.componentOutcome(r.driftOutcome(r.validateApps(ctx))), verdictDegraded)
}

// driftOutcome makes a healthy validate degraded (2) when what the
// bootstrap installed differs from the compiled platform: the apps may
// be Healthy by a stale rule, or a later deploy may be refused.
func (r *run) driftOutcome(code int) int {
	n := len(r.rep.BootstrapDrift)
	if n == 0 {
		return code
	}
	if r.rep.Summary != "" {
		r.rep.Summary += "; "
	}
	r.rep.Summary += fmt.Sprintf("%s (%s) between what the bootstrap installed and what the platform compiles to", english.Count(n, "difference"), driftKindList(r.rep.BootstrapDrift))
	if code == exitcode.OK {
		r.rep.Status = verdictDegraded
		return exitcode.Partial
	}
	return code
}

// validateApps is validate without what removed apps add to the outcome.
func (r *run) validateApps(ctx context.Context) int {
	perms := append(basePermissions(), r.appPermissions()...)
	perms = append(perms, r.componentPermissions()...)
	perms, dests := r.destinationCheck(append(perms, driftPermissions(r.cfg.Program.Platform.ArgoCD.Namespace)...))
	opts := r.clusterOptions(perms)
	opts.Advisory = true
	// An unknown cluster only warns: validate goes on to report every
	// app, those deploying there included.
	opts.Destinations = dests
	opts.DestinationsNeed = "the apps deploying there cannot be Synced or Healthy"
	opts.Templates, opts.ClusterTemplates = nil, nil
	cr, code := r.phase0(ctx, false, opts)
	if code != exitcode.OK {
		return code
	}
	r.phase = "verification"
	r.rep.Critical = r.critical
	for _, w := range r.critical {
		if w.Status == snapshot.Ready {
			r.log.Infof(r.phase, w.Component, "%s %s/%s: %d of %d replicas Ready, version %s", w.Kind, w.Namespace, w.Name, w.Ready, w.Replicas, orText(w.Version, "unknown"))
		} else {
			r.log.Warnf(r.phase, w.Component, "%s in namespace %s: %s", w.Status, w.Namespace, w.Message)
		}
	}
	apps := r.cfg.ScopeApps
	if !cr.ArgoCD.Installed {
		r.log.Errorf(r.phase, "argocd", "Argo CD is not installed (%s missing); no app can be healthy", english.List(cr.ArgoCD.Missing))
	}
	// Validate writes nothing: Phase 0's list of the Applications, made
	// for the snapshot, serves.
	status, err := r.readAppsOnce(ctx, apps, true)
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	// Applications of apps removed from the platform are drift too.
	if removed, err := r.readRemoved(ctx); err != nil {
		r.log.Warnf(r.phase, "removed-apps", "%s", err)
		r.rep.Problems = append(r.rep.Problems, "could not check for Applications of removed apps: "+err.Error())
	} else {
		r.reportRemoved(removed, removedLeft, nil)
		for _, ra := range removed {
			r.log.Warnf(r.phase, ra.Application, "Application of app %s, which is no longer in the platform", orText(ra.App, "unknown"))
		}
	}
	if cr.ArgoCD.Installed {
		r.recommendDrift(r.reportBootstrap(ctx, apps))
	}
	m := r.rep.Metrics
	for _, a := range apps {
		s := status[a.Name]
		v, why := s.verdict()
		m[v]++
		c := Component{App: a.Name, Stack: stackOf(a), Application: a.Application, Status: v, Health: s.Health, Sync: s.Sync, Message: why}
		if s.Message != "" && v != verdictHealthy {
			c.Message = why + ": " + s.Message
		}
		r.rep.Components = append(r.rep.Components, c)
		switch v {
		case verdictHealthy:
			r.log.Infof(r.phase, a.Name, "Healthy and Synced")
		case verdictDegraded:
			r.log.Warnf(r.phase, a.Name, "degraded: %s", c.Message)
		default:
			r.log.Errorf(r.phase, a.Name, "unhealthy: %s", c.Message)
			r.rep.Failures = append(r.rep.Failures, Failure{App: a.Name, Message: c.Message})
		}
	}
	r.rep.Resources = r.readResources(ctx, apps, status)
	r.aggregateHealth(apps, status, r.rep.Resources)
	nonCompliant := r.compliance(apps, status)
	var notReady []string
	for _, rh := range r.rep.Resources {
		if rh.Health != "" && rh.Health != "Healthy" {
			notReady = append(notReady, rh.Resource+" ("+rh.Health+")")
		}
	}
	switch {
	case m[verdictUnhealthy] > 0:
		r.rep.Status = verdictUnhealthy
		r.rep.Summary = fmt.Sprintf("%d of %d apps unhealthy, %d degraded, %d healthy", m[verdictUnhealthy], len(apps), m[verdictDegraded], m[verdictHealthy])
		if !cr.ArgoCD.Installed {
			r.rep.recommend("Argo CD is not installed in namespace %s: run platc deploy first.", r.cfg.Program.Platform.ArgoCD.Namespace)
		} else {
			r.rep.recommend("Run platc deploy: it deploys the apps whose Application is missing or failed, and skips the healthy ones.")
		}
		return exitcode.Failure
	case m[verdictDegraded] > 0:
		r.rep.Status = verdictDegraded
		r.rep.Summary = fmt.Sprintf("%d of %d apps degraded, %d healthy", m[verdictDegraded], len(apps), m[verdictHealthy])
		r.rep.recommend("Inspect the degraded apps with 'argocd app get <application>'; an app out of sync with Git needs a sync (platc deploy does it), a Degraded one needs its resources looked at.")
		return exitcode.Partial
	}
	if len(notReady) > 0 {
		// Every app is Healthy, yet what a dependent waits for is not:
		// its next deploy would stop at the wait step.
		r.rep.Status = verdictDegraded
		r.rep.Summary = fmt.Sprintf("all %d %s Healthy and Synced, but %s not ready: %s", len(apps), english.Plural(len(apps), "app"),
			english.Count(len(notReady), "resource node"), english.List(notReady))
		r.rep.recommend("A resource node that is not ready holds up the apps that depend on it: look at the resource with kubectl describe, and at its app's Application.")
		return exitcode.Partial
	}
	if nonCompliant {
		r.rep.Status = verdictDegraded
		r.rep.Summary = fmt.Sprintf("all %d %s Healthy and Synced, but an invariant does not hold on the cluster (see Compliance)", len(apps), english.Plural(len(apps), "app"))
		return exitcode.Partial
	}
	r.rep.Status = verdictHealthy
	r.rep.Summary = fmt.Sprintf("all %d %s Healthy and Synced", len(apps), english.Plural(len(apps), "app"))
	return exitcode.OK
}
