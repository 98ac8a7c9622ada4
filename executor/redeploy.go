package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/events"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/preflight"
)

// What teardown stops before it deletes anything, so that nothing
// redeploys behind it (RFC 6.5, INV-5): a push would otherwise make the
// root app-of-apps re-create the Applications from the new commit, and
// the Sensor queue a deploy workflow that runs once teardown releases
// the platform's mutex.
//
// The root and the events Application lose their automated sync; the
// policy they had is kept in AnnotationAutomated on each, and the next
// deploy puts it back (restoreRedeploy). The Sensor is deleted: Argo
// Events (v1.9, the version platc pins) has no way to pause one; its
// spec.replicas is raised to 1 when below (SensorSpec.GetReplicas), so
// replicas 0 would keep it listening. With the events Application's
// self-heal back on, Argo CD re-creates it from Git.
const (
	// AnnotationAutomated holds, as JSON, the spec.syncPolicy.automated a
	// teardown removed from platc's own Application.
	AnnotationAutomated = "platc.io/automated-before-teardown"
	// AnnotationSensorDeleted on the events Application names the Sensor
	// a teardown deleted, for the deploy that brings it back.
	AnnotationSensorDeleted = "platc.io/sensor-deleted-by-teardown"
	// AnnotationSuspended on the deploy CronWorkflow says a teardown
	// suspended it, so the next deploy resumes it (and only then: one the
	// HCL suspends stays suspended).
	AnnotationSuspended = "platc.io/suspended-by-teardown"
)

// A scheduled deploy would queue behind the teardown's mutex and then
// redeploy everything, so teardown suspends the deploy CronWorkflow too.
// It stays in the workflows Application, whose self-heal leaves the
// suspension alone: spec.suspend is absent from the generated object
// (false is omitted), and Argo CD's diff, two-way, three-way or
// structured-merge, ignores a live field the desired object does not set.

// sensorGone bounds the wait for the deleted Sensor to go: its
// controller removes its finalizer at once when it runs.
const sensorGone = 60 * time.Second

// ownApps are platc's Applications whose automated sync would redeploy:
// the root, then its group roots (each would re-create its apps'
// Applications), and the events Application (which would re-create the
// Sensor) when the platform has events.
func (r *run) ownApps() []string {
	apps := append([]string{argocd.RootApp}, argocd.GroupRoots(r.cfg.Program)...)
	if r.cfg.Program.Events != nil {
		apps = append(apps, argocd.EventsApp)
	}
	return apps
}

// redeployPermissions are what stopping (teardown) or restoring
// (deploy) needs: each object by name, nothing else.
func (r *run) redeployPermissions(teardown bool) []preflight.Permission {
	ns := r.cfg.Program.Platform.ArgoCD.Namespace
	var out []preflight.Permission
	for _, a := range r.ownApps() {
		why := "to restore the automated sync a teardown switched off"
		if teardown {
			why = "to switch its automated sync off before deleting anything, so a push cannot redeploy"
		}
		out = append(out,
			preflight.Permission{Verb: "get", Group: "argoproj.io", Resource: "applications", Namespace: ns, Name: a, Why: why},
			preflight.Permission{Verb: "patch", Group: "argoproj.io", Resource: "applications", Namespace: ns, Name: a, Why: why})
	}
	if name := r.deploySchedule(); name != "" {
		why := "to resume the scheduled deploy a teardown suspended"
		if teardown {
			why = "to suspend the scheduled deploy before deleting anything, so it cannot redeploy"
		}
		ns := r.cfg.Program.Platform.Workflows.Namespace
		out = append(out,
			preflight.Permission{Verb: "get", Group: "argoproj.io", Resource: "cronworkflows", Namespace: ns, Name: name, Why: why},
			preflight.Permission{Verb: "patch", Group: "argoproj.io", Resource: "cronworkflows", Namespace: ns, Name: name, Why: why})
	}
	if ev := r.cfg.Program.Events; ev != nil && teardown {
		why := "to stop the push trigger before deleting anything (Argo Events cannot pause a Sensor)"
		out = append(out,
			preflight.Permission{Verb: "delete", Group: "argoproj.io", Resource: "sensors", Namespace: ev.Namespace, Name: events.Sensor, Why: why},
			preflight.Permission{Verb: "get", Group: "argoproj.io", Resource: "sensors", Namespace: ev.Namespace, Name: events.Sensor, Why: "to wait until the deleted Sensor is gone"})
	}
	return out
}

// stopRedeploy switches off the automated sync of platc's own
// Applications, recording what each had, then deletes the Sensor. It is
// idempotent: a second teardown keeps the first one's record. It returns
// what it did, for the report, or an error that must stop the teardown
// before its first deletion.
func (r *run) stopRedeploy(ctx context.Context) ([]string, error) {
	ns := r.cfg.Program.Platform.ArgoCD.Namespace
	var done []string
	for _, name := range r.ownApps() {
		app, err := r.getObject(ctx, cluster.Applications, "Application", ns, name)
		if err != nil {
			return done, err
		}
		if app == nil {
			r.log.Infof(r.phase, name, "Application %s/%s does not exist; nothing to stop", ns, name)
			continue
		}
		automated, on, _ := unstructured.NestedFieldNoCopy(app.Object, "spec", "syncPolicy", "automated")
		if !on || automated == nil {
			r.log.Infof(r.phase, name, "Application %s/%s syncs manually already", ns, name)
			continue
		}
		ann := map[string]any{}
		if _, kept := app.GetAnnotations()[AnnotationAutomated]; !kept {
			prior, err := json.Marshal(automated)
			if err != nil {
				return done, err
			}
			ann[AnnotationAutomated] = string(prior)
		}
		// resourceVersion makes the patch fail rather than overwrite a
		// change made since the read.
		patch := map[string]any{
			"metadata": map[string]any{"resourceVersion": app.GetResourceVersion(), "annotations": ann},
			"spec":     map[string]any{"syncPolicy": map[string]any{"automated": nil}},
		}
		if err := r.mergePatch(ctx, ns, name, patch); err != nil {
			return done, fmt.Errorf("switching off the automated sync of Application %s/%s: %s", ns, name, r.client.Explain(err))
		}
		r.log.Infof(r.phase, name, "switched Application %s/%s to manual sync until the next deploy", ns, name)
		done = append(done, fmt.Sprintf("Application %s/%s: automated sync off until the next deploy", ns, name))
	}
	done, err := r.suspendSchedule(ctx, done)
	if err != nil {
		return done, err
	}
	ev := r.cfg.Program.Events
	if ev == nil {
		return done, nil
	}
	sensors := r.client.Dynamic.Resource(cluster.Sensors).Namespace(ev.Namespace)
	cctx, cancel := r.client.Call(ctx)
	err = sensors.Delete(cctx, events.Sensor, metav1.DeleteOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		r.log.Infof(r.phase, events.Sensor, "Sensor %s/%s does not exist; no push can trigger a deploy", ev.Namespace, events.Sensor)
		return done, nil
	case err != nil:
		return done, fmt.Errorf("deleting Sensor %s/%s: %s", ev.Namespace, events.Sensor, r.client.Explain(err))
	}
	// Recorded on the events Application for the deploy that brings it
	// back: a platform whose events Application syncs manually gets no
	// Sensor from self-heal, and the deploy says so.
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnotationSensorDeleted: events.Sensor}}}
	if err := r.mergePatch(ctx, ns, argocd.EventsApp, patch); err != nil && !apierrors.IsNotFound(err) {
		return done, fmt.Errorf("recording the deleted Sensor on Application %s/%s: %s", ns, argocd.EventsApp, r.client.Explain(err))
	}
	var finalizers []string
	err = r.poll(ctx, r.now().Add(sensorGone), func() (bool, error) {
		cctx, cancel := r.client.Call(ctx)
		s, err := sensors.Get(cctx, events.Sensor, metav1.GetOptions{})
		cancel()
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("waiting for Sensor %s/%s to go: %s", ev.Namespace, events.Sensor, r.client.Explain(err))
		}
		finalizers = s.GetFinalizers()
		return false, nil
	})
	if errors.Is(err, errDeadline) {
		return done, fmt.Errorf("Sensor %s/%s is still there %s after it was deleted, waiting on finalizers %v: its pod may still submit deploys; is the Argo Events controller running?", ev.Namespace, events.Sensor, human(sensorGone), finalizers)
	}
	if err != nil {
		return done, err
	}
	r.log.Infof(r.phase, events.Sensor, "deleted Sensor %s/%s until the next deploy", ev.Namespace, events.Sensor)
	return append(done, fmt.Sprintf("Sensor %s/%s: deleted until the next deploy", ev.Namespace, events.Sensor)), nil
}

// restoreRedeploy is deploy's half: every Application a teardown switched
// to manual sync gets back the automated sync it recorded; with the
// events Application's self-heal back, Argo CD re-creates the Sensor. A
// dry run only plans it.
func (r *run) restoreRedeploy(ctx context.Context) ([]string, error) {
	ns := r.cfg.Program.Platform.ArgoCD.Namespace
	var done []string
	recreating := false
	// The root last: its sync, once asked for, applies each of its
	// Applications with the automated sync it has live at that moment
	// (RespectIgnoreDifferences), so a group root or the events
	// Application restored after it had its restore undone (e2e
	// TestWorkflowOfWorkflows, 3 group roots of 6).
	order := append(slices.DeleteFunc(r.ownApps(), func(n string) bool { return n == argocd.RootApp }), argocd.RootApp)
	for _, name := range order {
		app, err := r.getObject(ctx, cluster.Applications, "Application", ns, name)
		if err != nil {
			return done, err
		}
		if app == nil {
			continue
		}
		anns := app.GetAnnotations()
		prior, ok := anns[AnnotationAutomated]
		sensor := anns[AnnotationSensorDeleted]
		if !ok && sensor == "" {
			continue
		}
		if r.cfg.DryRun {
			r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("restore what a teardown switched off on Application %s/%s", ns, name))
			continue
		}
		patch := map[string]any{"metadata": map[string]any{"resourceVersion": app.GetResourceVersion(),
			"annotations": map[string]any{AnnotationAutomated: nil, AnnotationSensorDeleted: nil}}}
		if ok {
			var automated any
			if err := json.Unmarshal([]byte(prior), &automated); err != nil {
				return done, fmt.Errorf("Application %s/%s: annotation %s is not the JSON a teardown writes (%v); set its spec.syncPolicy.automated by hand and remove the annotation", ns, name, AnnotationAutomated, err)
			}
			patch["spec"] = map[string]any{"syncPolicy": map[string]any{"automated": automated}}
		}
		if err := r.mergePatch(ctx, ns, name, patch); err != nil {
			return done, fmt.Errorf("restoring the automated sync of Application %s/%s: %s", ns, name, r.client.Explain(err))
		}
		if ok {
			r.log.Infof(r.phase, name, "restored the automated sync a teardown switched off on Application %s/%s", ns, name)
			done = append(done, fmt.Sprintf("Application %s/%s: automated sync restored", ns, name))
			if name != argocd.EventsApp {
				recreating = true
				if err := r.requestSync(ctx, ns, name); err != nil {
					return done, err
				}
			}
		}
		if sensor != "" {
			if heals, _ := jsonObject(prior)["selfHeal"].(bool); ok && heals {
				done = append(done, fmt.Sprintf("Sensor %s: Argo CD re-creates it (Application %s/%s heals itself)", sensor, ns, name))
			} else {
				r.log.Warnf(r.phase, name, "a teardown deleted Sensor %s and Application %s/%s does not heal itself: sync it to bring the push trigger back", sensor, ns, name)
				r.rep.recommend("Sync Application %s/%s to re-create Sensor %s, which a teardown deleted: until then a push does not deploy.", ns, name, sensor)
			}
		}
	}
	if recreating {
		r.waitRecreated(ctx)
	}
	return r.resumeSchedule(ctx, done)
}

// requestSync asks Argo CD to sync the root or a group root once, as
// argocd app sync does: by writing the Application's operation. Its
// automated sync alone would not re-create the Applications a teardown
// deleted: without self-heal, Argo CD syncs a revision automatically
// only once, and the root synced this one before the teardown. The
// operation carries the root's own sync options, as an automated sync's
// would (RespectIgnoreDifferences keeps the apps' automated sync as the
// deploy left it). An operation already there, a sync on its way, is
// left alone.
func (r *run) requestSync(ctx context.Context, ns, name string) error {
	for attempt := 0; ; attempt++ {
		app, err := r.getObject(ctx, cluster.Applications, "Application", ns, name)
		if err != nil || app == nil {
			return err
		}
		if _, busy := app.Object["operation"]; busy {
			r.log.Infof(r.phase, name, "Application %s/%s is syncing already", ns, name)
			return nil
		}
		rev, _, _ := unstructured.NestedString(app.Object, "spec", "source", "targetRevision")
		opts, _, _ := unstructured.NestedStringSlice(app.Object, "spec", "syncPolicy", "syncOptions")
		sync := map[string]any{"revision": rev}
		if len(opts) > 0 {
			sync["syncOptions"] = opts
		}
		patch := map[string]any{
			"metadata":  map[string]any{"resourceVersion": app.GetResourceVersion()},
			"operation": map[string]any{"initiatedBy": map[string]any{"username": "platc"}, "sync": sync},
		}
		err = r.mergePatch(ctx, ns, name, patch)
		switch {
		case err == nil:
			r.log.Infof(r.phase, name, "asked Argo CD to sync Application %s/%s at %s, so that it re-creates the Applications a teardown deleted", ns, name, rev)
			return nil
		case apierrors.IsConflict(err) && attempt < 3:
			continue // Argo CD wrote its status meanwhile; read again
		default:
			return fmt.Errorf("asking Argo CD to sync Application %s/%s: %s", ns, name, r.client.Explain(err))
		}
	}
}

// deploySchedule is the name of the deploy CronWorkflow, or "" when the
// platform schedules no deploy.
func (r *run) deploySchedule() string {
	for _, s := range r.cfg.Program.Schedules {
		if s.Action == ir.ScheduleDeploy {
			return s.Action + argo.ScheduleSuffix
		}
	}
	return ""
}

// suspendSchedule is teardown's half for the deploy schedule: suspend
// it, recording that the teardown did. One already suspended by the HCL
// or by hand is left as it is, and not recorded.
func (r *run) suspendSchedule(ctx context.Context, done []string) ([]string, error) {
	name := r.deploySchedule()
	if name == "" {
		return done, nil
	}
	ns := r.cfg.Program.Platform.Workflows.Namespace
	cw, err := r.getObject(ctx, cluster.CronWorkflows, "CronWorkflow", ns, name)
	if err != nil || cw == nil {
		if cw == nil && err == nil {
			r.log.Infof(r.phase, name, "CronWorkflow %s/%s does not exist; no scheduled deploy to stop", ns, name)
		}
		return done, err
	}
	if suspended, _, _ := unstructured.NestedBool(cw.Object, "spec", "suspend"); suspended {
		r.log.Infof(r.phase, name, "CronWorkflow %s/%s is suspended already", ns, name)
		return done, nil
	}
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": cw.GetResourceVersion(), "annotations": map[string]any{AnnotationSuspended: "true"}},
		"spec":     map[string]any{"suspend": true},
	}
	if err := r.patchCronWorkflow(ctx, name, patch); err != nil {
		return done, fmt.Errorf("suspending CronWorkflow %s/%s: %s", ns, name, r.client.Explain(err))
	}
	r.log.Infof(r.phase, name, "suspended CronWorkflow %s/%s until the next deploy", ns, name)
	return append(done, fmt.Sprintf("CronWorkflow %s/%s: suspended until the next deploy", ns, name)), nil
}

// resumeSchedule is deploy's half: resume the deploy schedule if a
// teardown suspended it. A dry run only plans it.
func (r *run) resumeSchedule(ctx context.Context, done []string) ([]string, error) {
	name := r.deploySchedule()
	if name == "" {
		return done, nil
	}
	ns := r.cfg.Program.Platform.Workflows.Namespace
	cw, err := r.getObject(ctx, cluster.CronWorkflows, "CronWorkflow", ns, name)
	if err != nil || cw == nil || cw.GetAnnotations()[AnnotationSuspended] == "" {
		return done, err
	}
	if r.cfg.DryRun {
		r.rep.Plan = append(r.rep.Plan, fmt.Sprintf("resume CronWorkflow %s/%s, which a teardown suspended", ns, name))
		return done, nil
	}
	patch := map[string]any{
		"metadata": map[string]any{"resourceVersion": cw.GetResourceVersion(), "annotations": map[string]any{AnnotationSuspended: nil}},
		"spec":     map[string]any{"suspend": false},
	}
	if err := r.patchCronWorkflow(ctx, name, patch); err != nil {
		return done, fmt.Errorf("resuming CronWorkflow %s/%s: %s", ns, name, r.client.Explain(err))
	}
	r.log.Infof(r.phase, name, "resumed CronWorkflow %s/%s, which a teardown suspended", ns, name)
	return append(done, fmt.Sprintf("CronWorkflow %s/%s: resumed", ns, name)), nil
}

// getObject reads one object of gvr (kind names it in the error) for
// stopRedeploy, restoreRedeploy and the deploy schedule: nil, and no
// error, when it does not exist.
func (r *run) getObject(ctx context.Context, gvr schema.GroupVersionResource, kind, ns, name string) (*unstructured.Unstructured, error) {
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	obj, err := r.client.Dynamic.Resource(gvr).Namespace(ns).Get(cctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading %s %s/%s: %s", kind, ns, name, r.client.Explain(err))
	}
	return obj, nil
}

// rootResync bounds the wait for the root, its automated sync back, to
// re-create the Applications a teardown deleted.
const rootResync = 3 * time.Minute

// waitRecreated waits, after the root's automated sync came back, until
// the root has re-created the Application of every app in scope it
// manages (all but adopted ones): the teardown deleted them, and the
// workflow's steps fail on an Application that does not exist yet. On
// timeout it warns and goes on; the steps then say which is missing.
func (r *run) waitRecreated(ctx context.Context) {
	var managed []*ir.App
	for _, a := range r.cfg.ScopeApps {
		if a.Source != nil {
			managed = append(managed, a)
		}
	}
	var missing []string
	var readErr error
	err := r.poll(ctx, r.now().Add(rootResync), func() (bool, error) {
		var st map[string]appStatus
		st, readErr = r.readApps(ctx, managed)
		missing = nil
		if readErr != nil {
			return false, nil // read again at the next poll
		}
		for _, a := range managed {
			if !st[a.Name].Exists {
				missing = append(missing, a.Application)
			}
		}
		return len(missing) == 0, nil
	})
	switch {
	case err == nil:
		r.log.Infof(r.phase, argocd.RootApp, "the root re-created the %d Applications a teardown deleted", len(managed))
	case errors.Is(err, errDeadline):
		r.log.Warnf(r.phase, argocd.RootApp, "the root has not re-created every Application %s after its automated sync came back (missing: %s; %v); the deploy goes on", human(rootResync), strings.Join(missing, ", "), readErr)
	}
}

// mergePatch and patchCronWorkflow are the teardown's writes, each
// naming its resource where it writes, which TestExecutorWritesOnlyWorkflows
// reads: one helper taking any resource would hide what is written.
func (r *run) mergePatch(ctx context.Context, ns, name string, patch map[string]any) error {
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	_, err = r.client.Dynamic.Resource(cluster.Applications).Namespace(ns).Patch(cctx, name, types.MergePatchType, b, metav1.PatchOptions{})
	return err
}

func (r *run) patchCronWorkflow(ctx context.Context, name string, patch map[string]any) error {
	b, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	_, err = r.client.Dynamic.Resource(cluster.CronWorkflows).Namespace(r.cfg.Program.Platform.Workflows.Namespace).Patch(cctx, name, types.MergePatchType, b, metav1.PatchOptions{})
	return err
}

// jsonObject decodes s as a JSON object, nil when it is not one.
func jsonObject(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}
