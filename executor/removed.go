package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// Statuses of a removed app's Application in the report.
const (
	removedLeft    = "left"         // still there; PRUNE=true deletes it
	removedBlocked = "blocked"      // still there; its record does not say how to delete it
	removedWould   = "would-delete" // a dry run with PRUNE=true
	removedDeleted = "deleted"
	removedFailed  = "failed" // the prune workflow did not delete it
)

// removedApp is the Application of an app that is no longer in the
// compiled platform, read back from what it recorded when it was
// deployed (emit/argocd's labels and annotations).
type removedApp struct {
	argo.Removed
	Deleting bool
	// Problem says why the record cannot drive a deletion; "" when it can.
	Problem string
}

// readRemoved lists platc's Applications of this platform and
// environment whose Application the compiled platform no longer has
// (whatever the scope: a removed app belongs to no scope), in the order
// they must be deleted in, dependents first.
func (r *run) readRemoved(ctx context.Context) ([]removedApp, error) {
	p := r.cfg.Program
	ns := p.Platform.ArgoCD.Namespace
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	list, err := r.client.Dynamic.Resource(cluster.Applications).Namespace(ns).List(cctx, metav1.ListOptions{LabelSelector: argocd.AppSelector(p)})
	if err != nil {
		if isNoKind(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the Applications platc generated in namespace %s: %s", ns, r.client.Explain(err))
	}
	current := map[string]bool{}
	for _, a := range p.Apps {
		current[a.Application] = true
	}
	snapshots := slices.Contains(argo.VolumeOverrides(p), string(ir.VolumesSnapshot))
	byName := map[string]removedApp{}
	var records []argo.Removed
	for i := range list.Items {
		u := &list.Items[i]
		if current[u.GetName()] {
			continue
		}
		ra := recorded(u, snapshots)
		byName[ra.Application] = ra
		records = append(records, ra.Removed)
	}
	out := make([]removedApp, 0, len(records))
	for _, rec := range argo.RemovalOrder(records) {
		out = append(out, byName[rec.Application])
	}
	return out, nil
}

// recorded reads one Application's record. snapshots says whether the
// workflows may create VolumeSnapshots (some app of the platform still
// uses that policy, so the RBAC for it is deployed).
func recorded(u *unstructured.Unstructured, snapshots bool) removedApp {
	ann := u.GetAnnotations()
	ra := removedApp{Deleting: u.GetDeletionTimestamp() != nil}
	ra.Application = u.GetName()
	ra.App = u.GetLabels()[argocd.LabelApp]
	ra.Project, _, _ = unstructured.NestedString(u.Object, "spec", "project")
	if deps := ann[argocd.AnnotationDependsOn]; deps != "" {
		ra.DependsOn = strings.Split(deps, ",")
	}
	ra.Volumes = ir.VolumePolicy(ann[argocd.AnnotationVolumes])
	t, terr := time.ParseDuration(ann[argocd.AnnotationTimeout])
	ra.Timeout = t
	switch {
	case ra.Project == "":
		ra.Problem = "it has no spec.project"
	case ra.Volumes != ir.VolumesRetain && ra.Volumes != ir.VolumesDelete && ra.Volumes != ir.VolumesSnapshot:
		ra.Problem = fmt.Sprintf("its annotation %s is %q, not retain, delete or snapshot", argocd.AnnotationVolumes, ann[argocd.AnnotationVolumes])
	case terr != nil || t <= 0:
		ra.Problem = fmt.Sprintf("its annotation %s is %q, not a positive duration", argocd.AnnotationTimeout, ann[argocd.AnnotationTimeout])
	case ra.Volumes == ir.VolumesSnapshot && !snapshots:
		ra.Problem = "its volume policy is snapshot, but no app of the platform uses snapshot any more, so the workflows may not create VolumeSnapshots"
	}
	return ra
}

// reportRemoved records the removed apps in the report with status (one
// of removed*, for those whose record can drive a deletion), and
// recommends how to remove those left.
func (r *run) reportRemoved(removed []removedApp, status string, message func(removedApp) string) {
	ns := r.cfg.Program.Platform.ArgoCD.Namespace
	r.rep.RemovedApps = r.rep.RemovedApps[:0]
	for _, ra := range removed {
		e := RemovedApp{Application: ra.Application, Namespace: ns, App: ra.App, Project: ra.Project,
			DependsOn: orEmpty(ra.DependsOn), Volumes: string(ra.Volumes), Status: status}
		if ra.Timeout > 0 {
			e.Timeout = ir.FormatDuration(ra.Timeout)
		}
		if message != nil {
			e.Message = message(ra)
		}
		if ra.Problem != "" && (status == removedLeft || status == removedWould) {
			e.Status, e.Message = removedBlocked, "cannot be deleted from its record: "+ra.Problem+"; delete it by hand (argocd app delete "+ra.Application+" --cascade), minding its volumes"
		}
		if ra.Deleting && e.Message == "" {
			e.Message = "being deleted already"
		}
		r.rep.RemovedApps = append(r.rep.RemovedApps, e)
	}
	r.rep.Metrics["removed_apps"] = len(removed)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// leftRemoved names the removed apps whose Application is still there
// after the run.
func (r *run) leftRemoved() []string {
	var left []string
	for _, e := range r.rep.RemovedApps {
		if e.Status != removedDeleted && e.Status != removedWould {
			left = append(left, e.Application)
		}
	}
	return left
}

// removalOutcome adds what is left of removed apps to the outcome of an
// action that otherwise ended with code: an Application of an app that
// is no longer in the platform makes a clean deploy partial and a healthy
// validate degraded (exit 2, as teardown's orphans), since the cluster
// runs more than the platform declares. Worse codes stand.
func (r *run) removalOutcome(code int, degraded string) int {
	left := r.leftRemoved()
	if len(left) == 0 {
		return code
	}
	what := fmt.Sprintf("1 Application of an app removed from the platform remains: %s", left[0])
	if len(left) > 1 {
		what = fmt.Sprintf("%d Applications of apps removed from the platform remain: %s", len(left), english.List(left))
	}
	if r.cfg.Prune && r.cfg.Action == config.Deploy {
		r.rep.recommend("Look at the Removed apps section: an Application marked failed kept what it manages until its deletion succeeds (read the prune workflow's log); one marked blocked has no usable record and must be deleted by hand.")
	} else {
		r.rep.recommend("Run platc deploy with PRUNE=true to delete the Applications of removed apps (%s), dependents first, each with the volume policy it recorded; add DRY_RUN=true first to see the order.", english.List(left))
	}
	if r.rep.Summary != "" {
		r.rep.Summary += "; "
	}
	r.rep.Summary += what
	if code == exitcode.OK && !r.cfg.DryRun {
		r.rep.Status = degraded
		return exitcode.Partial
	}
	return code
}

// prune deletes the Applications of removed apps whose record can drive
// the deletion, with the operator's consent (PRUNE=true), before the rest
// is deployed: one workflow built from the records (argo.Prune), followed
// to its end. A dry run has the API server check that workflow and says
// what it would delete. It returns exitcode.OK when everything it tried
// to delete is gone; otherwise the deploy stops there, so the platform
// is never synced around a half-finished removal.
func (r *run) prune(ctx context.Context, removed []removedApp) int {
	var todo []argo.Removed
	var order []string
	for _, ra := range removed {
		if ra.Problem == "" {
			todo = append(todo, ra.Removed)
			order = append(order, ra.Application)
		}
	}
	if len(todo) == 0 {
		return exitcode.OK
	}
	wf, err := argo.Prune(r.cfg.Program, todo)
	var le *argo.LimitError
	if errors.As(err, &le) {
		// Nothing was deleted: the workflow is never submitted.
		r.rep.Summary = fmt.Sprintf("the workflow that deletes the Applications of %d removed apps is over a limit, so nothing was pruned: %s: %s", len(todo), le.Summary, le.Detail)
		r.rep.Recommend = append(r.rep.Recommend, "Prune in steps: put back part of the removed apps in the platform source, deploy with PRUNE=true, then remove the rest; or raise platform.workflows.node_budget if only the node budget is exceeded.")
		return exitcode.Invalid
	}
	if err != nil {
		r.rep.Summary = fmt.Sprintf("building the workflow that deletes the Applications of removed apps: %v", err)
		return exitcode.Failure
	}
	stamp(wf, r.cfg, r.env.Trace)
	// Not a deploy: a later run must not take it for one and attach to it.
	wf.Labels[LabelAction] = PruneAction
	created, err := r.submit(ctx, wf, r.cfg.DryRun)
	if err != nil {
		r.rep.Summary = fmt.Sprintf("submitting the workflow that deletes the Applications of removed apps failed: %s", r.client.Explain(err))
		return exitcode.Failure
	}
	if r.cfg.DryRun {
		r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("first delete the Applications of %s, dependents first: %s (the API server accepted the workflow in a server-side dry run)",
			english.Count(len(order), "removed app"), strings.Join(order, ", ")))
		for _, ra := range removed {
			if ra.Problem == "" {
				r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("volumes of %s: %s (recorded), timeout %s", ra.Application, ra.Volumes, ir.FormatDuration(ra.Timeout)))
			}
		}
		r.reportRemoved(removed, removedWould, nil)
		return exitcode.OK
	}
	r.log.Infof(r.phase, "prune", "submitted workflow %s/%s to delete %s, dependents first: %s", created.Namespace, created.Name,
		english.Count(len(order), "removed app"), strings.Join(order, ", "))
	tasks := make([]*ir.App, len(todo))
	for i, t := range todo {
		tasks[i] = &ir.App{Name: t.Application}
	}
	res := r.follow(ctx, created, tasks, r.start.Add(r.timeout(created.Spec.ActiveDeadlineSeconds)))
	after, err := r.readRemoved(ctx)
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	still := map[string]bool{}
	for _, ra := range after {
		still[ra.Application] = true
	}
	deleted := 0
	r.reportRemoved(removed, removedLeft, nil)
	for i := range r.rep.RemovedApps {
		e := &r.rep.RemovedApps[i]
		switch {
		case e.Status == removedBlocked:
		case !still[e.Application]:
			e.Status, e.Message = removedDeleted, ""
			deleted++
		default:
			e.Status = removedFailed
			e.Message = fmt.Sprintf("still there after workflow %s/%s", created.Namespace, created.Name)
			if n, ok := res.Nodes[e.Application]; ok && n.Message != "" {
				e.Message += ": " + n.Message
			}
		}
	}
	r.rep.Metrics["pruned"] = deleted
	if deleted == len(todo) {
		r.log.Infof(r.phase, "prune", "deleted the Applications of %s", english.Count(deleted, "removed app"))
		return exitcode.OK
	}
	wfName := created.Namespace + "/" + created.Name
	r.rep.Summary = fmt.Sprintf("workflow %s deleted %d of the %s; nothing else was deployed", wfName, deleted, english.Count(len(todo), "removed app"))
	r.rep.recommend("Read the log of workflow %s ('argo logs -n %s %s'), fix what kept an Application (often a finalizer waiting on an operator that is already gone), and run platc deploy with PRUNE=true again: what is gone stays gone.", wfName, created.Namespace, created.Name)
	if res.TimedOut || (res.WF != nil && timedOut(res.WF)) {
		r.rep.Status = "timeout"
		return exitcode.Timeout
	}
	return exitcode.Failure
}
