package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/step"
)

// appStatus is what Argo CD says about one app's Application.
type appStatus struct {
	Exists    bool
	Deleting  bool
	Health    string // status.health.status; "" when Argo CD has not assessed it
	Sync      string // status.sync.status
	Operation string // status.operationState.phase
	Message   string // status.health.message, or the operation's message
	// FirstSyncAutomated: Argo CD's record of the Application's first
	// sync (history entry 0, or the operation before any history) says
	// the application controller started it, not a user: automated sync
	// was on before platc's own first sync (INV-2). False when that
	// record has rotated out of the history.
	FirstSyncAutomated bool
	// Finalizers of an Application being deleted, for the orphan report.
	Finalizers []string
	// Hooks are the resource hooks Argo CD reports for the Application:
	// those of its last sync operation (with their phase) and any hook
	// still present among its resources (phase unknown), for INV-8's
	// compliance check.
	Hooks []liveHook
	// Managed are the resources the Application manages (its
	// status.resources), for validate's resource nodes.
	Managed []managedResource
	// Stale says why Argo CD's sync status may not describe the current
	// spec: the last comparison used another source, or a pinned commit
	// was not the one compared. Empty when the status is current.
	Stale string
	// NothingToDo: the app's sync-and-wait step would find nothing to do
	// (step.Application.Converged, the step's own rule: no operation
	// running, at the expected revision, automated sync as the platform
	// asks), so a deploy skips its task.
	NothingToDo bool
}

// converged is the skip rule of the generated sync step (docs/workflows.md, sync-and-wait):
// Synced, Healthy, and the last operation did not fail.
// It also needs the status to be current (Stale empty): a deploy right
// after the target revision changed must not trust a comparison made
// against the old one.
func (s appStatus) converged() bool {
	return s.Exists && !s.Deleting && s.Health == "Healthy" && s.Sync == "Synced" &&
		s.Operation != "Failed" && s.Operation != "Error" && s.Stale == ""
}

// skippable is an app a deploy runs no step for: converged, current, and
// nothing left for its step to do.
func (s appStatus) skippable() bool { return s.converged() && s.NothingToDo }

// nothingToDo applies the step's idempotence rule to the Application u of
// app a. An Application that does not decode as the step reads it has
// something to do: its step reports what.
func nothingToDo(a *ir.App, u *unstructured.Unstructured) bool {
	// Only the fields step.Application reads: a status's resources and
	// sync result can be most of an Application, and a deploy reads
	// every one.
	part := map[string]any{}
	for _, path := range [][]string{
		{"metadata", "name"}, {"metadata", "resourceVersion"}, {"spec", "syncPolicy"}, {"operation"},
		{"status", "sync", "status"}, {"status", "sync", "revision"}, {"status", "health"},
		{"status", "operationState", "phase"}, {"status", "operationState", "message"},
	} {
		if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, path...); ok {
			m := part
			for _, k := range path[:len(path)-1] {
				next, _ := m[k].(map[string]any)
				if next == nil {
					next = map[string]any{}
					m[k] = next
				}
				m = next
			}
			m[path[len(path)-1]] = v
		}
	}
	raw, err := json.Marshal(part)
	if err != nil {
		return false
	}
	var app step.Application
	if json.Unmarshal(raw, &app) != nil {
		return false
	}
	return app.Converged(argo.SyncInputOf(a))
}

// Verdicts of validate.
const (
	verdictHealthy   = "healthy"
	verdictDegraded  = "degraded"
	verdictUnhealthy = "unhealthy"
)

// verdict classifies one app for validate. Healthy: Healthy and Synced.
// Unhealthy: no Application, no assessed health, or health Unknown (RFC
// 5.3 treats Unknown as failure). Everything else that exists is degraded:
// Degraded, Progressing, Suspended or Missing health, or Healthy but out of
// sync with Git.
func (s appStatus) verdict() (string, string) {
	switch {
	case !s.Exists:
		return verdictUnhealthy, "the Application does not exist"
	case s.Deleting:
		return verdictUnhealthy, "the Application is being deleted"
	case s.Health == "" || s.Health == "Unknown":
		return verdictUnhealthy, fmt.Sprintf("health is %s", orText(s.Health, "not assessed"))
	case s.Health == "Healthy" && s.Sync == "Synced":
		return verdictHealthy, ""
	case s.Health == "Healthy":
		return verdictDegraded, fmt.Sprintf("Healthy but %s", orText(s.Sync, "sync status unknown"))
	}
	return verdictDegraded, fmt.Sprintf("health is %s", s.Health)
}

// readApps reads the Applications of apps with one List call in the Argo
// CD namespace. A missing CRD reads as "no Applications".
func (r *run) readApps(ctx context.Context, apps []*ir.App) (map[string]appStatus, error) {
	list, err := r.listApplications(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading Argo CD Applications in namespace %s: %s", r.cfg.Program.Platform.ArgoCD.Namespace, r.client.Explain(err))
	}
	return appStatuses(list, apps), nil
}

// readAppsOnce is readApps, answered from the list Phase 0 made for the
// snapshot when the run has changed nothing since (unchanged): the
// Applications are then as they were listed moments before, as good as
// a list now, and the deploy's resume decision does not list every
// Application again. Otherwise, or when that list failed, it lists.
func (r *run) readAppsOnce(ctx context.Context, apps []*ir.App, unchanged bool) (map[string]appStatus, error) {
	if l := r.listedApps; l != nil && l.Err == nil && unchanged {
		r.listedApps = nil
		return appStatuses(l.Items, apps), nil
	}
	return r.readApps(ctx, apps)
}

// listApplications lists the Applications in the Argo CD namespace, the
// one read of them that readApps and the snapshot share. A missing CRD
// reads as none.
func (r *run) listApplications(ctx context.Context) ([]unstructured.Unstructured, error) {
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	list, err := r.client.Dynamic.Resource(cluster.Applications).Namespace(r.cfg.Program.Platform.ArgoCD.Namespace).List(cctx, metav1.ListOptions{})
	switch {
	case isNoKind(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return list.Items, nil
}

// appStatuses are the statuses of apps by the Applications listed.
func appStatuses(list []unstructured.Unstructured, apps []*ir.App) map[string]appStatus {
	byName := map[string]*unstructured.Unstructured{}
	for i := range list {
		byName[list[i].GetName()] = &list[i]
	}
	out := make(map[string]appStatus, len(apps))
	for _, a := range apps {
		u := byName[a.Application]
		if u == nil {
			out[a.Name] = appStatus{}
			continue
		}
		s := appStatus{Exists: true, Deleting: u.GetDeletionTimestamp() != nil, Finalizers: u.GetFinalizers()}
		s.Health, _, _ = unstructured.NestedString(u.Object, "status", "health", "status")
		s.Sync, _, _ = unstructured.NestedString(u.Object, "status", "sync", "status")
		s.Operation, _, _ = unstructured.NestedString(u.Object, "status", "operationState", "phase")
		s.Message, _, _ = unstructured.NestedString(u.Object, "status", "health", "message")
		if s.Operation == "Failed" || s.Operation == "Error" {
			if m, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "message"); m != "" {
				s.Message = m
			}
		}
		s.Stale = staleness(u)
		s.NothingToDo = nothingToDo(a, u)
		s.FirstSyncAutomated = firstSyncAutomated(u)
		s.Hooks = liveHooks(u)
		s.Managed = managedResources(u)
		out[a.Name] = s
	}
	return out
}

func firstSyncAutomated(u *unstructured.Unstructured) bool {
	hist, _, _ := unstructured.NestedSlice(u.Object, "status", "history")
	for _, h := range hist {
		m, _ := h.(map[string]any)
		if id, _, _ := unstructured.NestedInt64(m, "id"); id == 0 {
			auto, _, _ := unstructured.NestedBool(m, "initiatedBy", "automated")
			return auto
		}
	}
	if len(hist) == 0 {
		auto, _, _ := unstructured.NestedBool(u.Object, "status", "operationState", "operation", "initiatedBy", "automated")
		return auto
	}
	return false
}

// staleness compares what Argo CD last compared (status.sync.comparedTo)
// with the Application's spec. Argo CD refreshes on its own schedule
// (about every three minutes), so right after the root app changed a
// target revision, Synced may still describe the old one. Only the fields
// that say where manifests come from are compared, so a field Argo CD
// normalises cannot make every app look stale.
func staleness(u *unstructured.Unstructured) string {
	spec, _, _ := unstructured.NestedMap(u.Object, "spec", "source")
	cmp, _, _ := unstructured.NestedMap(u.Object, "status", "sync", "comparedTo", "source")
	if spec == nil {
		return "" // multi-source Applications: nothing simple to compare
	}
	if cmp == nil {
		return "Argo CD has not compared it with its source yet"
	}
	for _, k := range []string{"repoURL", "path", "chart", "targetRevision"} {
		a, _ := spec[k].(string)
		b, _ := cmp[k].(string)
		if a != b {
			return fmt.Sprintf("Argo CD last compared it with %s %q, but the spec now says %q", k, b, a)
		}
	}
	// What the source renders with: a values change leaves repoURL,
	// chart and revision alone, and Synced would still describe the
	// old values until Argo CD compares again.
	for _, k := range []string{"helm", "kustomize", "directory", "plugin"} {
		if !reflect.DeepEqual(spec[k], cmp[k]) {
			return fmt.Sprintf("Argo CD last compared it with other %s options than the spec now has", k)
		}
	}
	if rev, _ := spec["targetRevision"].(string); ir.IsFullCommit(rev) {
		if got, _, _ := unstructured.NestedString(u.Object, "status", "sync", "revision"); got != rev {
			return fmt.Sprintf("Argo CD compared revision %q, not the pinned %q", got, rev)
		}
	}
	return ""
}

// liveHook is one resource hook Argo CD ran or keeps for an Application.
type liveHook struct {
	Group, Kind, Namespace, Name string
	// Phase is the hook type (PreSync, Sync, PostSync, SyncFail, ...);
	// empty for a hook listed only among the Application's resources,
	// which do not say it.
	Phase string
}

// liveHooks reads the hooks of u: the entries with a hookType in its last
// operation's sync result, then the resources marked hook that the
// result does not list. Argo CD maps Helm's hook annotations to these
// hook types itself, so Helm hooks are included.
func liveHooks(u *unstructured.Unstructured) []liveHook {
	var out []liveHook
	seen := map[liveHook]bool{}
	add := func(h liveHook) {
		key := h
		key.Phase = ""
		if !seen[key] {
			seen[key] = true
			out = append(out, h)
		}
	}
	results, _, _ := unstructured.NestedSlice(u.Object, "status", "operationState", "syncResult", "resources")
	for _, r := range results {
		m, _ := r.(map[string]any)
		phase, _, _ := unstructured.NestedString(m, "hookType")
		if phase == "" {
			continue
		}
		add(hookOf(m, phase))
	}
	resources, _, _ := unstructured.NestedSlice(u.Object, "status", "resources")
	for _, r := range resources {
		m, _ := r.(map[string]any)
		if hook, _, _ := unstructured.NestedBool(m, "hook"); hook {
			add(hookOf(m, ""))
		}
	}
	return out
}

func hookOf(m map[string]any, phase string) liveHook {
	str := func(k string) string { v, _, _ := unstructured.NestedString(m, k); return v }
	return liveHook{Group: str("group"), Kind: str("kind"), Namespace: str("namespace"), Name: str("name"), Phase: phase}
}
