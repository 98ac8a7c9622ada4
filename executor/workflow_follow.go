package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// Following: polling a running Workflow until it ends or runs out of
// time, with progress lines and the report's records.

// followResult is how following a workflow ended.
type followResult struct {
	WF       *wfv1.Workflow
	Nodes    map[string]nodeState
	Others   []nodeState // failed steps that are not app tasks
	TimedOut bool        // platc's own limit ran out before the workflow finished
	Gone     bool        // the workflow was deleted while platc followed it
	Stopped  []string    // child workflows platc stopped when their parent ended
	Err      error
}

// interrupted is the outcome of an action stopped while it followed
// workflow wfName (a signal): the workflow goes on without platc.
func (r *run) interrupted(wfName string) int {
	r.rep.Summary = fmt.Sprintf("interrupted; workflow %s goes on in the cluster", wfName)
	r.rep.recommend("Run platc %s again to follow workflow %s to its end.", r.cfg.Action, wfName)
	return exitcode.Failure
}

// followAndRecord follows wf to its end or its deadline and records the
// workflow, with its final phase and message, in the report.
func (r *run) followAndRecord(ctx context.Context, wf *wfv1.Workflow, apps []*ir.App, attached bool) followResult {
	res := r.follow(ctx, wf, apps, r.start.Add(r.timeout(r.ownDeadline())))
	r.rep.Workflow = &WorkflowInfo{Name: wf.Name, Namespace: wf.Namespace, Attached: attached, StoppedChildren: res.Stopped}
	if res.WF != nil {
		r.rep.Workflow.Phase = string(res.WF.Status.Phase)
		r.rep.Workflow.Message = r.log.Scrub(res.WF.Status.Message)
	}
	return res
}

// follow polls the workflow until it finishes, logging each app's node
// as its phase changes, or until deadline. Transient API errors are
// retried; the API being gone for longer than maxOutage ends the wait.
func (r *run) follow(ctx context.Context, wf *wfv1.Workflow, apps []*ir.App, deadline time.Time) followResult {
	names := map[string]bool{}
	for _, a := range apps {
		names[a.Name] = true
	}
	seen := map[string]wfv1.NodePhase{}
	lastOK := r.now()
	var wfPhase wfv1.WorkflowPhase
	var wfMessage string
	// A workflow the controller has not touched after a dozen polls (a
	// minute at the default interval) usually means no controller runs.
	pickup, warned := r.now().Add(12*r.env.PollInterval), false
	var cur = wf
	var res followResult
	err := r.poll(ctx, deadline, func() (bool, error) {
		cctx, cancel := r.client.Call(ctx)
		u, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(wf.Namespace).Get(cctx, wf.Name, metav1.GetOptions{})
		cancel()
		switch {
		case apierrors.IsNotFound(err):
			res = followResult{WF: cur, Nodes: r.treeNodes(ctx, cur, names), Gone: true}
			return true, nil
		case err != nil:
			if r.now().Sub(lastOK) > r.maxOutage() {
				res = followResult{WF: cur, Nodes: r.treeNodes(ctx, cur, names), Err: fmt.Errorf("lost the Kubernetes API for over %s while following workflow %s: %s", r.maxOutage(), wf.Name, r.client.Explain(err))}
				return true, nil
			}
			r.log.Warnf(r.phase, "workflow", "reading workflow %s failed, retrying: %s", wf.Name, r.client.Explain(err))
		default:
			lastOK = r.now()
			if cur, err = fromUnstructured(u); err != nil {
				res = followResult{WF: wf, Err: err}
				return true, nil
			}
			// The message matters while Pending: it says what the workflow
			// waits for (the platform's mutex held by another run, say).
			if cur.Status.Phase != wfPhase || cur.Status.Message != wfMessage {
				wfPhase, wfMessage = cur.Status.Phase, cur.Status.Message
				if wfPhase != "" {
					msg := ""
					if wfMessage != "" {
						msg = ": " + r.log.Scrub(wfMessage)
					}
					r.log.Infof(r.phase, "workflow", "workflow %s is %s%s", cur.Name, wfPhase, msg)
				}
			}
			if cur.Status.Phase == "" && !warned && r.now().After(pickup) {
				warned = true
				r.log.Warnf(r.phase, "workflow", "workflow %s has not been picked up by the workflow controller yet; is the Argo Workflows controller running in the cluster?", cur.Name)
			}
			nodes := r.treeNodes(ctx, cur, names)
			r.progress(apps, nodes, seen)
			if cur.Status.Phase.Completed() {
				others := r.withoutChildren(otherFailures(cur, names))
				for _, o := range others {
					r.log.Errorf(r.phase, o.App, "step %s %s: %s", o.Node, strings.ToLower(string(o.Phase)), r.log.Scrub(orText(o.Message, "no message")))
				}
				stopped := r.stopEndedChildren(ctx, cur)
				res = followResult{WF: cur, Nodes: nodes, Others: others, Stopped: stopped}
				return true, nil
			}
		}
		return false, nil
	})
	switch {
	case err == nil:
		return res
	case errors.Is(err, errDeadline):
		return followResult{WF: cur, Nodes: r.treeNodes(ctx, cur, names), TimedOut: true}
	default: // ctx ended
		return followResult{WF: cur, Nodes: r.treeNodes(ctx, cur, names), Err: err}
	}
}

// treeNodes are the app nodes of wf and, when wf is the parent of a
// workflow split over the node budget (docs/workflows.md), of its child
// Workflows, found by the label the parent puts on them: the apps run in
// the children. A child that cannot be listed or read is left out of this
// poll (warned about) and read again at the next; its apps show as not
// started meanwhile, never as done.
func (r *run) treeNodes(ctx context.Context, wf *wfv1.Workflow, names map[string]bool) map[string]nodeState {
	nodes := appNodes(wf, names)
	if !splitParent(wf) {
		return nodes
	}
	cctx, cancel := r.client.Call(ctx)
	list, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(wf.Namespace).List(cctx, metav1.ListOptions{LabelSelector: argo.LabelParent + "=" + wf.Name})
	cancel()
	if err != nil {
		r.log.Warnf(r.phase, "workflow", "listing the child workflows of %s failed, retrying: %s", wf.Name, r.client.Explain(err))
		return nodes
	}
	var children []*wfv1.Workflow
	for i := range list.Items {
		c, err := fromUnstructured(&list.Items[i])
		if err != nil {
			r.log.Warnf(r.phase, "workflow", "%s", err)
			continue
		}
		children = append(children, c)
	}
	nodes = mergeChildNodes(nodes, children, names)
	r.omitChildren(wf, nodes, names)
	return nodes
}

// omitChildren marks the apps of every child the parent omitted (a group
// it waits for failed, so its Workflow was never created) as Omitted,
// like an app task of a single workflow whose dependency failed, and
// those of a child it skipped (a resume found all its apps converged) as
// Skipped: without it they would show as not started. Which apps a
// child holds is the emitter's answer (argo.ChildApps) for the compiled
// program.
func (r *run) omitChildren(wf *wfv1.Workflow, nodes map[string]nodeState, names map[string]bool) {
	if r.childApps == nil {
		r.childApps = map[string][]string{}
		o, err := r.emitted().Objects()
		if err != nil {
			r.log.Warnf(r.phase, "workflow", "building the workflows to read their children: %s", err)
			return
		}
		for _, children := range o.Children {
			for _, c := range children {
				// A snapshot child holds no app: its failure is the
				// parent's step.
				if apps := argo.ChildApps(c); len(apps) > 0 {
					r.childApps[c.Name] = apps
				}
			}
		}
	}
	for _, n := range wf.Status.Nodes {
		apps, ok := r.childApps[n.DisplayName]
		if !ok || n.Phase != wfv1.NodeOmitted && n.Phase != wfv1.NodeSkipped {
			continue
		}
		msg := fmt.Sprintf("child workflow %s was not run: a group it waits for failed", n.DisplayName)
		if n.Phase == wfv1.NodeSkipped {
			// A resume: every app of the child had nothing to do.
			msg = fmt.Sprintf("child workflow %s was not run: all its apps were already converged", n.DisplayName)
		}
		for _, a := range apps {
			if _, ran := nodes[a]; !ran && names[a] {
				nodes[a] = nodeState{App: a, Phase: n.Phase, Node: n.Name, Message: msg}
			}
		}
	}
}

// stopEndedChildren stops the child workflows wf, a split parent that
// has ended (stopped, terminated, out of time), leaves running: Argo
// stops none of them, as a resource template's Workflow is not one of
// the parent's pods and terminate runs no exit handler, and they hold no
// mutex, so they would overlap the next run. Each is stopped as 'argo
// stop' does (spec.shutdown: Stop). Without the right to patch Workflows
// platc warns with the command instead; the outcome stays the parent's.
// It returns the children it stopped.
func (r *run) stopEndedChildren(ctx context.Context, wf *wfv1.Workflow) []string {
	if !splitParent(wf) || !wf.Status.Phase.Completed() {
		return nil
	}
	cctx, cancel := r.client.Call(ctx)
	list, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(wf.Namespace).List(cctx, metav1.ListOptions{LabelSelector: argo.LabelParent + "=" + wf.Name})
	cancel()
	if err != nil {
		r.log.Warnf(r.phase, "workflow", "cannot list the child workflows of %s: %s", wf.Name, r.client.Explain(err))
		return nil
	}
	var children []*wfv1.Workflow
	for i := range list.Items {
		if c, err := fromUnstructured(&list.Items[i]); err == nil {
			children = append(children, c)
		}
	}
	stop, stopping := childrenToStop(wf, children)
	var stopped, left []string
	denied := false
	for _, name := range stop {
		err := r.stopWorkflow(ctx, wf.Namespace, name)
		switch {
		case err == nil:
			stopped = append(stopped, name)
		case apierrors.IsNotFound(err):
			// Deleted meanwhile: nothing runs.
		default:
			denied = denied || apierrors.IsForbidden(err)
			r.log.Warnf(r.phase, "workflow", "cannot stop child workflow %s: %s", name, r.client.Explain(err))
			left = append(left, name)
		}
	}
	if len(stopped) > 0 {
		r.log.Infof(r.phase, "workflow", "workflow %s ended %s while its child %s %s %s still running; stopped %s as 'argo stop' does: Argo does not stop the Workflows a parent created",
			wf.Name, wf.Status.Phase, english.Plural(len(stopped), "workflow"), english.List(stopped), english.Agree(len(stopped), "was", "were"), english.Agree(len(stopped), "it", "them"))
	}
	if len(stopping) > 0 {
		r.log.Infof(r.phase, "workflow", "child %s %s of %s already told to stop", english.Plural(len(stopping), "workflow"), english.List(stopping), wf.Name)
	}
	if len(left) > 0 {
		r.log.Warnf(r.phase, "workflow", "workflow %s ended %s, but its child %s %s %s still running", wf.Name, wf.Status.Phase,
			english.Plural(len(left), "workflow"), english.List(left), english.Agree(len(left), "is", "are"))
		why := ""
		if denied {
			why = fmt.Sprintf(" (platc may not patch workflows in %s; grant it to have platc stop them)", wf.Namespace)
		}
		r.rep.recommend("Stop the children of %s with 'argo stop -n %s -l %s=%s'%s, or let each reach its own deadline; until then they may overlap a new run.",
			wf.Name, wf.Namespace, argo.LabelParent, wf.Name, why)
	}
	return stopped
}

// childrenToStop decides which of children, listed by wf's label, an
// ended split parent stops: those that still run, are not yet told to
// stop (stopping lists those), and that wf owns (the ownerReference its
// resource template sets): a label alone, which anyone who can write a
// Workflow can set, does not make platc stop a workflow.
func childrenToStop(wf *wfv1.Workflow, children []*wfv1.Workflow) (stop, stopping []string) {
	if !wf.Status.Phase.Completed() {
		return nil, nil // a running parent's children are its run's
	}
	for _, c := range children {
		if c.Labels[argo.LabelParent] != wf.Name || c.Status.Phase.Completed() || !ownedBy(c, wf) {
			continue
		}
		if c.Spec.Shutdown != "" {
			stopping = append(stopping, c.Name)
			continue
		}
		stop = append(stop, c.Name)
	}
	slices.Sort(stop)
	slices.Sort(stopping)
	return stop, stopping
}

func ownedBy(c, wf *wfv1.Workflow) bool {
	for _, o := range c.OwnerReferences {
		if o.UID == wf.UID && o.UID != "" && o.Kind == "Workflow" {
			return true
		}
	}
	return false
}

// stopWorkflow stops workflow name as 'argo stop' does: the controller
// stops its running steps and runs its exit handler.
func (r *run) stopWorkflow(ctx context.Context, ns, name string) error {
	patch := []byte(`{"spec":{"shutdown":"` + string(wfv1.ShutdownStrategyStop) + `"}}`)
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	_, err := r.client.Dynamic.Resource(cluster.Workflows).Namespace(ns).Patch(cctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// withoutChildren drops the failed tasks of a split parent that ran a
// child workflow: the child's apps report the failure, with its cause.
func (r *run) withoutChildren(others []nodeState) []nodeState {
	return slices.DeleteFunc(others, func(o nodeState) bool { _, child := r.childApps[o.App]; return child })
}

// splitParent reports whether wf runs child workflows: a template of its
// stored spec creates Workflows.
func splitParent(wf *wfv1.Workflow) bool {
	specs := []*wfv1.WorkflowSpec{&wf.Spec}
	if s := wf.Status.StoredWorkflowSpec; s != nil {
		specs = append(specs, s)
	}
	for _, spec := range specs {
		for _, t := range spec.Templates {
			if t.Resource != nil && strings.Contains(t.Resource.Manifest, argo.LabelParent) {
				return true
			}
		}
	}
	return false
}

// mergeChildNodes adds the app nodes of children to nodes. An app in two
// children (a child created again when the parent was retried) keeps the
// node that started last, as appNodes does within one workflow.
func mergeChildNodes(nodes map[string]nodeState, children []*wfv1.Workflow, names map[string]bool) map[string]nodeState {
	for _, c := range children {
		for app, st := range appNodes(c, names) {
			if prev, ok := nodes[app]; ok && prev.StartedAt.After(st.StartedAt) {
				continue
			}
			nodes[app] = st
		}
	}
	return nodes
}

func (r *run) maxOutage() time.Duration {
	if d := 8 * r.env.PollInterval; d > 2*time.Minute {
		return d
	}
	return 2 * time.Minute
}

// progress logs every app whose node changed phase since the last poll,
// in deploy order, with a running count.
func (r *run) progress(apps []*ir.App, nodes map[string]nodeState, seen map[string]wfv1.NodePhase) {
	changed := false
	for _, a := range apps {
		n, ok := nodes[a.Name]
		if !ok || seen[a.Name] == n.Phase {
			continue
		}
		seen[a.Name] = n.Phase
		changed = true
		switch n.Phase {
		case wfv1.NodePending:
			r.log.Debugf(r.phase, a.Name, "pending")
		case wfv1.NodeRunning:
			r.log.Infof(r.phase, a.Name, "running")
		case wfv1.NodeSucceeded:
			r.log.Infof(r.phase, a.Name, "succeeded in %s", human(n.FinishedAt.Sub(n.StartedAt)))
		case wfv1.NodeSkipped:
			r.log.Infof(r.phase, a.Name, "skipped: %s", orText(n.Message, "nothing to do"))
		case wfv1.NodeOmitted:
			r.log.Warnf(r.phase, a.Name, "not run: a dependency did not succeed (node Omitted)")
		case wfv1.NodeFailed, wfv1.NodeError:
			r.log.Errorf(r.phase, a.Name, "%s after %s: %s", strings.ToLower(string(n.Phase)), human(n.FinishedAt.Sub(n.StartedAt)), r.log.Scrub(orText(n.Message, "no message")))
		}
	}
	if changed {
		var done, failed, running int
		for _, a := range apps {
			switch nodes[a.Name].Phase {
			case wfv1.NodeSucceeded, wfv1.NodeSkipped:
				done++
			case wfv1.NodeFailed, wfv1.NodeError, wfv1.NodeOmitted:
				failed++
			case wfv1.NodeRunning:
				running++
			}
		}
		r.log.Infof(r.phase, "workflow", "progress: %d of %d apps done, %d running, %d failed or not run", done, len(apps), running, failed)
	}
}

func orText(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// human formats a duration for people as the platform language writes
// one ("1m20s", "45s", "10m"); clocks that disagree give no negative
// durations.
func human(d time.Duration) string { return ir.FormatDuration(max(d, 0)) }
