package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// Parameters of the teardown workflow (the Argo Workflows emitter's
// contract): confirm must equal the platform name, volumes overrides every
// app's volume policy.
const (
	ConfirmParam      = argo.ParamConfirm
	VolumePolicyParam = argo.ParamVolumes
	// OrphanStep is the teardown workflow's last step: it lists the
	// Applications left in the platform's projects and exits 2 when some
	// remain that the platform does not declare, writing them to its
	// output parameter OrphanOutput as [{project, application, platform}].
	OrphanStep   = "orphan-report"
	OrphanOutput = "orphans"
)

// teardown is RFC 7.2's teardown: the confirmation was checked with the
// configuration; here Phase 0, the current state, the teardown workflow
// (reverse dependency order, INV-5), then the removal and orphan reports.
func (r *run) teardown(ctx context.Context) int {
	perms := append(basePermissions(), r.workflowPermissions(TeardownTemplate)...)
	perms = append(perms, r.appPermissions()...)
	perms = append(perms,
		preflight.Permission{Verb: "list", Resource: "persistentvolumeclaims", Why: "to report volumes kept or left behind"},
		preflight.Permission{Verb: "list", Resource: "persistentvolumes", Why: "to report the volumes of deleted claims, kept or left behind"},
		preflight.Permission{Verb: "list", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Why: "to report the CRDs of removed apps, whose controller is gone"},
		preflight.Permission{Verb: "list", Resource: "namespaces", Why: "to report namespaces stuck terminating"})
	perms = append(perms, r.redeployPermissions(true)...)
	perms = append(perms, r.namespacePermissions(r.cfg.ScopeApps)...)
	perms = append(perms, r.leftoverPermissions(r.cfg.ScopeApps)...)
	perms = append(perms, r.primitivesPermissions()...)
	perms, dests := r.destinationCheck(perms)
	opts := r.clusterOptions(perms, TeardownTemplate)
	opts.Destinations = dests
	opts.DestinationsNeed = "Argo CD cannot delete what the apps deployed there, so the teardown would wait on their Applications until it times out"
	cr, code := r.phase0(ctx, true, opts)
	if code != exitcode.OK {
		return code
	}
	// Before anything is deleted, and on every teardown (a second one
	// finishes what a failed one left): nothing may redeploy behind it.
	r.phase = "stop"
	if r.cfg.DryRun {
		r.rep.Plan = append(r.rep.Plan, "first switch platc's own Applications to manual sync and delete the push Sensor, until the next deploy")
	} else {
		stopped, err := r.stopRedeploy(ctx)
		r.rep.Stopped = stopped
		if err != nil {
			r.rep.Summary = "nothing was deleted: " + err.Error()
			r.rep.recommend("A push could redeploy what the teardown deletes, so it did not start. Fix the cause, then run platc teardown again.")
			return exitcode.Failure
		}
	}
	apps := r.cfg.ScopeApps
	r.phase = "state"
	before, err := r.readApps(ctx, apps)
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	var present []*ir.App
	for _, a := range apps {
		if before[a.Name].Exists {
			present = append(present, a)
		}
	}
	if len(present) == 0 {
		// RFC 7.3: teardown of an already removed platform succeeds.
		r.log.Infof(r.phase, "platform", "no Application of the %d apps in scope exists; nothing to remove", len(apps))
		r.rep.Status = "clean"
		r.rep.Summary = fmt.Sprintf("already removed: none of the %d %s in scope has an Application", len(apps), english.Plural(len(apps), "app"))
		// A teardown that stopped early may have left namespaces.
		r.retained(ctx, apps)
		r.removeNamespaces(ctx, apps, before)
		r.leftCRDs(ctx, apps, before)
		r.leftovers(ctx, apps, before, r.stuckNamespaces(ctx, apps))
		r.rep.Metrics["removed"] = len(r.rep.Removed)
		r.rep.Metrics["orphans"] = len(r.rep.Orphans)
		if len(r.rep.Orphans) > 0 {
			r.rep.Status = "orphans"
			verb := "remain"
			if len(r.rep.Orphans) == 1 {
				verb = "remains"
			}
			r.rep.Summary = fmt.Sprintf("no Application of the %d %s in scope is left, but %s %s", len(apps), english.Plural(len(apps), "app"), english.Count(len(r.rep.Orphans), "orphan"), verb)
			r.rep.recommend("Look at each orphan's finalizers and owner before removing anything by hand; then run platc teardown again.")
			return exitcode.Partial
		}
		if n := len(r.rep.Removed); n > 0 {
			r.rep.Summary += fmt.Sprintf("; removed %s left by an earlier teardown", english.Count(n, "namespace"))
		}
		return r.afterTeardown(ctx, exitcode.OK)
	}
	r.log.Infof(r.phase, "platform", "%d of %d apps still have an Application", len(present), len(apps))
	if !cr.Workflows.Installed {
		r.rep.Summary = fmt.Sprintf("%d Applications remain but the teardown workflow cannot run: Argo Workflows is not ready (%s missing)", len(present), english.List(cr.Workflows.Missing))
		r.rep.recommend("Install Argo Workflows and apply the generated templates (platc build, then sync them with Argo CD), or run platc deploy, which bootstraps them; then run teardown again.")
		return exitcode.Failure
	}

	r.phase = "orchestration"
	params, code := r.teardownParams(ctx)
	if code != exitcode.OK {
		return code
	}
	cur, err := r.running(ctx)
	if err != nil {
		r.rep.Summary = fmt.Sprintf("cannot list workflows: %s", r.client.Explain(err))
		return exitcode.Failure
	}
	if cur == nil && r.cfg.Scope.Kind == config.ScopePlatform {
		r.checkDrift(ctx, TeardownTemplate)
	}
	wf, attached, code := r.launch(ctx, TeardownTemplate, params, cur)
	if code != exitcode.OK || wf == nil {
		return code
	}
	if r.cfg.DryRun {
		return r.teardownPlan(present)
	}
	res := r.followAndRecord(ctx, wf, apps, attached)

	r.phase = "verification"
	after, err := r.readApps(ctx, apps)
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	r.components(apps, res.Nodes, after)
	r.recordRemoval(present, after)
	orphanStep := r.orphanStep(&res)
	r.stepFailures(res.Others)
	r.retained(ctx, apps)
	if res.Err == nil && !res.Gone && !res.TimedOut && (res.WF.Status.Phase == wfv1.WorkflowSucceeded || orphanStep) {
		r.removeNamespaces(ctx, apps, after)
	}
	r.leftCRDs(ctx, apps, after)
	r.leftovers(ctx, apps, after, r.stuckNamespaces(ctx, apps))
	r.rep.Metrics["removed"] = len(r.rep.Removed)
	r.rep.Metrics["orphans"] = len(r.rep.Orphans)
	r.rep.Metrics["retained"] = len(r.rep.Retained)
	return r.afterTeardown(ctx, r.teardownOutcome(res, orphanStep))
}

// teardownPlan is a dry run's report: what would be removed, in order,
// and what happens to each app's volumes.
func (r *run) teardownPlan(present []*ir.App) int {
	order := make([]string, 0, len(present))
	for i := len(present) - 1; i >= 0; i-- {
		order = append(order, present[i].Name)
	}
	r.rep.Plan = append(r.rep.Plan, "remove, dependents first: "+strings.Join(order, ", "))
	for _, a := range present {
		r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("volumes of %s: %s", a.Name, r.volumePolicy(a)))
	}
	r.rep.Status = "dry-run"
	r.rep.Summary = fmt.Sprintf("Phase 0 passed; a real run would remove %d %s", len(present), english.Plural(len(present), "app"))
	return exitcode.OK
}

// recordRemoval records each app that had an Application before the run
// as removed, or as an orphan with the reason it is still there.
func (r *run) recordRemoval(present []*ir.App, after map[string]appStatus) {
	ns := r.cfg.Program.Platform.ArgoCD.Namespace
	for _, a := range present {
		s := after[a.Name]
		if !s.Exists {
			r.rep.Removed = append(r.rep.Removed, fmt.Sprintf("Application %s/%s (%s)", ns, a.Application, a.Name))
			continue
		}
		reason := "still exists"
		if s.Deleting {
			reason = "being deleted, waiting on finalizers " + strings.Join(s.Finalizers, ", ")
		}
		r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Application", Namespace: ns, Name: a.Application, Reason: reason})
	}
}

// orphanStep reads the orphan report step: true when it is the workflow's
// only failure and it failed the way it does when orphans remain (exit 2),
// which makes the run "orphans remain" rather than a failure. Its list
// joins the orphan report either way, and it leaves res.Others.
func (r *run) orphanStep(res *followResult) bool {
	only := true
	var step *nodeState
	var rest []nodeState
	for i, o := range res.Others {
		if o.App == OrphanStep {
			step = &res.Others[i]
		} else {
			rest = append(rest, o)
			only = false
		}
	}
	if step == nil {
		return false
	}
	var left []struct {
		Project     string `json:"project"`
		Application string `json:"application"`
		Platform    bool   `json:"platform"`
	}
	if err := json.Unmarshal([]byte(step.Outputs[OrphanOutput]), &left); err == nil {
		for _, o := range left {
			if slices.ContainsFunc(r.rep.Orphans, func(x Orphan) bool { return x.Kind == "Application" && x.Name == o.Application }) {
				continue // already reported from the Application itself
			}
			reason := fmt.Sprintf("left in project %s; the platform does not declare it", o.Project)
			if o.Platform {
				reason = fmt.Sprintf("a platform Application still present in project %s (something re-created it)", o.Project)
			}
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Application", Namespace: r.cfg.Program.Platform.ArgoCD.Namespace, Name: o.Application, Reason: reason})
		}
	}
	for _, n := range res.Nodes {
		if n.Phase == wfv1.NodeFailed || n.Phase == wfv1.NodeError || n.Phase == wfv1.NodeOmitted {
			only = false
		}
	}
	if only && strings.Contains(step.Message, "exit code 2") {
		res.Others = rest
		if len(left) == 0 {
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Application", Namespace: r.cfg.Program.Platform.ArgoCD.Namespace, Name: "(see the orphan-report step's log)",
				Reason: "the teardown workflow's orphan report found Applications left in the platform's projects"})
		}
		r.log.Warnf(r.phase, OrphanStep, "the orphan report found Applications left behind")
		return true
	}
	return false
}

func (r *run) teardownOutcome(res followResult, orphansOnly bool) int {
	rep := r.rep
	removedApps := 0 // Removed lists namespaces too
	for _, x := range rep.Removed {
		if strings.HasPrefix(x, "Application ") {
			removedApps++
		}
	}
	wfName := res.WF.Namespace + "/" + res.WF.Name
	switch {
	case errors.Is(res.Err, context.Canceled):
		return r.interrupted(wfName)
	case res.Err != nil:
		rep.Summary = res.Err.Error()
		return exitcode.Failure
	case res.Gone:
		rep.Summary = fmt.Sprintf("workflow %s was deleted while platc followed it", wfName)
		return exitcode.Failure
	case res.TimedOut:
		rep.Status = "timeout"
		rep.Summary = fmt.Sprintf("teardown workflow %s did not finish within %s; %d removed so far", wfName, human(r.limit), removedApps)
		rep.recommend("Workflow %s is still running. Run platc teardown again to follow it, or set ACTION_TIMEOUT longer.", wfName)
		return exitcode.Timeout
	}
	r.recommendFailures(wfName)
	if res.WF.Status.Phase != wfv1.WorkflowSucceeded && !orphansOnly {
		if timedOut(res.WF) {
			rep.Status = "timeout"
			rep.Summary = fmt.Sprintf("teardown workflow %s ran out of time; %d removed, %d left", wfName, removedApps, len(rep.Orphans))
			return exitcode.Timeout
		}
		rep.Summary = fmt.Sprintf("teardown workflow %s %s: %d removed, %d left", wfName, strings.ToLower(string(res.WF.Status.Phase)), removedApps, len(rep.Orphans))
		rep.recommend("Fix the failing deletion (often a finalizer waiting on an operator that is already gone), then run platc teardown again: what is gone stays gone.")
		return exitcode.Failure
	}
	if len(rep.Orphans) > 0 {
		rep.Status = "orphans"
		rep.Summary = fmt.Sprintf("teardown workflow %s succeeded but %d %s remain", wfName, len(rep.Orphans), english.Plural(len(rep.Orphans), "orphan"))
		rep.recommend("Look at each orphan's finalizers and owner before removing anything by hand; forcing a finalizer off can leak storage or cloud resources.")
		return exitcode.Partial
	}
	rep.Status = "clean"
	rep.Summary = fmt.Sprintf("teardown workflow %s succeeded: %d %s removed", wfName, removedApps, english.Plural(removedApps, "Application"))
	if n := len(rep.Removed) - removedApps; n > 0 {
		rep.Summary += fmt.Sprintf(", and %s Argo CD created", english.Count(n, "namespace"))
	}
	if len(rep.Retained) > 0 {
		rep.recommend("%d volume claims and namespaces were kept (listed under retained); delete them once their data is no longer needed.", len(rep.Retained))
	}
	return exitcode.OK
}

// volumePolicy is the policy in force for a's volumes: PV_POLICY when
// set, else the app's own teardown setting (retain by default).
func (r *run) volumePolicy(a *ir.App) ir.VolumePolicy {
	if r.cfg.PVPolicy != "" {
		return r.cfg.PVPolicy
	}
	if a.Teardown.Volumes != "" {
		return a.Teardown.Volumes
	}
	return ir.VolumesRetain
}

// teardownParams are the teardown workflow's arguments: the confirmation
// the workflow checks again itself, and PV_POLICY when set. platc refuses
// to run when PV_POLICY is set but the template has no parameter to carry
// it: silently ignoring a volume policy could delete data the operator
// meant to keep, or keep data meant to go.
func (r *run) teardownParams(ctx context.Context) (map[string]string, int) {
	params := map[string]string{}
	declared := map[string]bool{ConfirmParam: true, VolumePolicyParam: true} // scoped workflows are built with both
	// The volume policies the workflow accepts (the parameter's enum).
	allowed := argo.VolumeOverrides(r.cfg.Program)
	if r.cfg.Scope.Kind == config.ScopePlatform {
		t, err := r.template(ctx, TeardownTemplate)
		if err != nil {
			r.rep.Summary = fmt.Sprintf("reading WorkflowTemplate %s: %s", TeardownTemplate, r.client.Explain(err))
			return nil, exitcode.Failure
		}
		declared = map[string]bool{}
		allowed = nil
		for _, p := range t.Spec.Arguments.Parameters {
			declared[p.Name] = true
			if p.Name == VolumePolicyParam {
				for _, v := range p.Enum {
					allowed = append(allowed, string(v))
				}
			}
		}
	}
	if declared[ConfirmParam] {
		params[ConfirmParam] = r.cfg.Program.Platform.Name
	}
	if r.cfg.PVPolicy != "" {
		if !declared[VolumePolicyParam] {
			r.rep.Summary = fmt.Sprintf("PV_POLICY is set, but WorkflowTemplate %s has no %q parameter to pass it to; unset PV_POLICY to use each app's own volume policy, or regenerate the templates with this platc", TeardownTemplate, VolumePolicyParam)
			return nil, exitcode.Invalid
		}
		if len(allowed) > 0 && !slices.Contains(allowed, string(r.cfg.PVPolicy)) {
			r.rep.Summary = fmt.Sprintf("PV_POLICY=%s is not a volume policy this platform's teardown accepts (%s): the workflows may create VolumeSnapshots only when an app declares teardown { volumes = \"snapshot\" }", r.cfg.PVPolicy, strings.Join(allowed, ", "))
			return nil, exitcode.Invalid
		}
		if r.cfg.PVPolicy == ir.VolumesSnapshot {
			for _, a := range r.cfg.ScopeApps {
				if cl := a.Destination.Cluster; cl != nil && a.Source != nil {
					r.rep.Summary = fmt.Sprintf("PV_POLICY=snapshot would snapshot the volumes of app %s in the cluster Argo CD runs in, but the app deploys to cluster %s, where its claims are: the workflows create VolumeSnapshots only in their own cluster; use PV_POLICY=retain, or tear the app down separately", a.Name, cl.Name)
					return nil, exitcode.Invalid
				}
			}
		}
		params[VolumePolicyParam] = string(r.cfg.PVPolicy)
	}
	return params, exitcode.OK
}

// retained lists the volume claims left in the apps' namespaces: kept on
// purpose under retain or snapshot, orphans under delete.
func (r *run) retained(ctx context.Context, apps []*ir.App) {
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	pvcs, err := r.client.Kube.CoreV1().PersistentVolumeClaims("").List(cctx, metav1.ListOptions{})
	if err != nil {
		r.log.Warnf(r.phase, "volumes", "cannot list volume claims: %s", r.client.Explain(err))
		return
	}
	policy := map[string]ir.VolumePolicy{}
	for _, a := range apps {
		if !a.Destination.InCluster() {
			continue // its claims are in its own cluster, out of reach here
		}
		// Apps sharing a namespace: the most careful policy wins.
		if p, ok := policy[a.Namespace]; !ok || p == ir.VolumesDelete {
			policy[a.Namespace] = r.volumePolicy(a)
		}
	}
	claims := map[string]bool{}
	for _, pvc := range pvcs.Items {
		claims[pvc.Namespace+"/"+pvc.Name] = true
		p, ok := policy[pvc.Namespace]
		if !ok {
			continue
		}
		if p == ir.VolumesDelete {
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "PersistentVolumeClaim", Namespace: pvc.Namespace, Name: pvc.Name, Reason: "volume policy is delete, but the claim remains"})
		} else {
			r.rep.Retained = append(r.rep.Retained, fmt.Sprintf("PersistentVolumeClaim %s/%s (policy %s)", pvc.Namespace, pvc.Name, p))
		}
	}
	// The volumes of the claims teardown deleted (delete and snapshot):
	// one whose reclaim policy is Retain is kept by that policy, the
	// StorageClass's choice; one that should have been deleted with its
	// claim and is still there is left behind.
	cctx, cancel = r.client.Call(ctx)
	pvs, err := r.client.Kube.CoreV1().PersistentVolumes().List(cctx, metav1.ListOptions{})
	cancel()
	if err != nil {
		r.log.Warnf(r.phase, "volumes", "cannot list volumes: %s", r.client.Explain(err))
	} else {
		for _, pv := range pvs.Items {
			ref := pv.Spec.ClaimRef
			if ref == nil || claims[ref.Namespace+"/"+ref.Name] {
				continue // unclaimed, or its claim is reported above
			}
			if _, ok := policy[ref.Namespace]; !ok {
				continue
			}
			if pv.Spec.PersistentVolumeReclaimPolicy == corev1.PersistentVolumeReclaimDelete {
				r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "PersistentVolume", Name: pv.Name,
					Reason: fmt.Sprintf("its claim %s/%s was deleted and its reclaim policy is Delete, but it remains (phase %s)", ref.Namespace, ref.Name, pv.Status.Phase)})
				continue
			}
			r.rep.Retained = append(r.rep.Retained, fmt.Sprintf("PersistentVolume %s (its claim %s/%s was deleted; kept by its reclaim policy %s)", pv.Name, ref.Namespace, ref.Name, pv.Spec.PersistentVolumeReclaimPolicy))
		}
	}
	slices.Sort(r.rep.Retained)
}

// stuckNamespaces reports app namespaces stuck terminating, with the
// reason the namespace controller gives, and returns every namespace
// being deleted, for leftovers: one list serves both (nil when it could
// not be read).
func (r *run) stuckNamespaces(ctx context.Context, apps []*ir.App) map[string]bool {
	want := map[string]bool{}
	for _, a := range apps {
		if a.Destination.InCluster() { // another cluster's namespaces are out of reach here
			want[a.Namespace] = true
		}
	}
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	list, err := r.client.Kube.CoreV1().Namespaces().List(cctx, metav1.ListOptions{})
	if err != nil {
		r.log.Warnf(r.phase, "namespaces", "cannot list namespaces: %s", r.client.Explain(err))
		return nil
	}
	terminating := map[string]bool{}
	for _, ns := range list.Items {
		if ns.DeletionTimestamp == nil {
			continue
		}
		terminating[ns.Name] = true
		if !want[ns.Name] {
			continue
		}
		reason := "stuck terminating"
		for _, c := range ns.Status.Conditions {
			if c.Status == "True" && c.Message != "" {
				reason += ": " + c.Message
			}
		}
		r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Namespace", Name: ns.Name, Reason: reason})
	}
	return terminating
}
