package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
)

// Namespaces a teardown never deletes, whatever an app says: the
// cluster's own.
var systemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// defaultNamespaceWait bounds the wait for deleted namespaces to go.
const defaultNamespaceWait = 2 * time.Minute

// createdNamespaces are the namespaces Argo CD created for apps
// (CreateNamespace=true, which platc adds unless the app's sync options
// say CreateNamespace=false) in the cluster platc reaches, other than the
// cluster's and platc's own. Argo CD does not track a namespace it
// creates, so nothing else deletes them (issue 24). Sorted.
func (r *run) createdNamespaces(apps []*ir.App) []string {
	p := r.cfg.Program
	never := append(slices.Clone(systemNamespaces), p.Platform.ArgoCD.Namespace, p.Platform.Workflows.Namespace)
	if p.Events != nil {
		never = append(never, p.Events.Namespace)
	}
	var out []string
	for _, a := range apps {
		if !a.Destination.InCluster() || a.Namespace == "" || slices.Contains(a.Sync.Options, "CreateNamespace=false") ||
			slices.Contains(never, a.Namespace) || slices.Contains(out, a.Namespace) {
			continue
		}
		out = append(out, a.Namespace)
	}
	slices.Sort(out)
	return out
}

// namespacePermissions: deleting each namespace by name, and, when the
// run may take snapshots, listing the VolumeSnapshots in it.
func (r *run) namespacePermissions(apps []*ir.App) []preflight.Permission {
	var out []preflight.Permission
	for _, ns := range r.createdNamespaces(apps) {
		out = append(out, preflight.Permission{Verb: "delete", Resource: "namespaces", Name: ns,
			Why: "to delete the namespace Argo CD created for the platform's apps (CreateNamespace=true)"})
		if r.snapshots(apps) {
			out = append(out, preflight.Permission{Verb: "list", Group: "snapshot.storage.k8s.io", Resource: "volumesnapshots", Namespace: ns,
				Why: "to keep a namespace that holds VolumeSnapshots: deleting it would delete them"})
		}
	}
	return out
}

// snapshots reports whether a teardown of apps may have taken
// VolumeSnapshots: an app's policy is snapshot, or PV_POLICY says so.
func (r *run) snapshots(apps []*ir.App) bool {
	return slices.ContainsFunc(apps, func(a *ir.App) bool { return r.volumePolicy(a) == ir.VolumesSnapshot })
}

// removeNamespaces deletes, once the apps are gone, the namespaces Argo
// CD created for them, except those still holding a claim (kept by the
// volume policy, or left behind) and those another app of the platform,
// outside the run's scope, still deploys to, and those of an app whose
// Application is still there (after): deleting the namespace would delete
// its resources behind Argo CD. It waits a bounded time for them to go;
// stuckNamespaces then reports those still terminating. What it keeps,
// and why, goes to the report's retained list.
func (r *run) removeNamespaces(ctx context.Context, apps []*ir.App, after map[string]appStatus) {
	cands := r.createdNamespaces(apps)
	if len(cands) == 0 {
		return
	}
	inScope := map[string]bool{}
	still := map[string]string{} // namespace → why it stays
	for _, a := range apps {
		inScope[a.Name] = true
		if after[a.Name].Exists && slices.Contains(cands, a.Namespace) {
			still[a.Namespace] = fmt.Sprintf("kept: the Application of app %s is still there", a.Name)
		}
	}
	var outside []*ir.App
	for _, a := range r.cfg.Program.Apps {
		if !inScope[a.Name] && slices.Contains(cands, a.Namespace) && a.Destination.InCluster() {
			outside = append(outside, a)
		}
	}
	if len(outside) > 0 {
		st, err := r.readApps(ctx, outside)
		if err != nil {
			r.log.Warnf(r.phase, "namespaces", "cannot tell whether apps outside the scope still use the namespaces, so none is deleted: %s", err)
			return
		}
		for _, a := range outside {
			if _, ok := still[a.Namespace]; !ok && st[a.Name].Exists {
				still[a.Namespace] = fmt.Sprintf("kept: app %s, outside this teardown's scope, still deploys to it", a.Name)
			}
		}
	}
	var deleted []string
	for _, ns := range cands {
		if why, ok := still[ns]; ok {
			r.rep.Retained = append(r.rep.Retained, fmt.Sprintf("Namespace %s (%s)", ns, why))
			continue
		}
		cctx, cancel := r.client.Call(ctx)
		pvcs, err := r.client.Kube.CoreV1().PersistentVolumeClaims(ns).List(cctx, metav1.ListOptions{})
		cancel()
		if err != nil {
			r.log.Warnf(r.phase, ns, "cannot list the claims in namespace %s, so it is kept: %s", ns, r.client.Explain(err))
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Namespace", Name: ns, Reason: "not deleted: its claims could not be listed (" + r.client.Explain(err) + ")"})
			continue
		}
		var snaps []string
		if r.snapshots(apps) {
			cctx, cancel = r.client.Call(ctx)
			list, err := r.client.Dynamic.Resource(cluster.VolumeSnapshots).Namespace(ns).List(cctx, metav1.ListOptions{})
			cancel()
			switch {
			case apierrors.IsNotFound(err): // no snapshot CRD: none
			case err != nil:
				r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Namespace", Name: ns, Reason: "not deleted: its VolumeSnapshots could not be listed (" + r.client.Explain(err) + ")"})
				continue
			default:
				for _, v := range list.Items {
					snaps = append(snaps, v.GetName())
				}
				slices.Sort(snaps)
			}
		}
		if len(snaps) > 0 {
			r.rep.Retained = append(r.rep.Retained, fmt.Sprintf("Namespace %s (kept: it holds %s %s; deleting the namespace would delete them)", ns, english.Count(len(snaps), "VolumeSnapshot"), strings.Join(snaps, ", ")))
			continue
		}
		if n := len(pvcs.Items); n > 0 {
			names := make([]string, 0, n)
			for _, c := range pvcs.Items {
				names = append(names, c.Name)
			}
			slices.Sort(names)
			r.rep.Retained = append(r.rep.Retained, fmt.Sprintf("Namespace %s (kept: it holds %s %s)", ns, english.Count(n, "claim"), strings.Join(names, ", ")))
			continue
		}
		cctx, cancel = r.client.Call(ctx)
		err = r.client.Kube.CoreV1().Namespaces().Delete(cctx, ns, metav1.DeleteOptions{})
		cancel()
		switch {
		case apierrors.IsNotFound(err):
			continue // gone already (or never created)
		case err != nil:
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "Namespace", Name: ns, Reason: "could not be deleted: " + r.client.Explain(err)})
			continue
		}
		r.log.Infof(r.phase, ns, "deleting namespace %s, which Argo CD created for the platform", ns)
		deleted = append(deleted, ns)
	}
	wait := r.env.NamespaceWait
	if wait <= 0 {
		wait = defaultNamespaceWait
	}
	err := r.poll(ctx, r.now().Add(wait), func() (bool, error) {
		var left []string
		for _, ns := range deleted {
			cctx, cancel := r.client.Call(ctx)
			_, err := r.client.Kube.CoreV1().Namespaces().Get(cctx, ns, metav1.GetOptions{})
			cancel()
			if apierrors.IsNotFound(err) {
				r.rep.Removed = append(r.rep.Removed, "Namespace "+ns)
				continue
			}
			left = append(left, ns)
		}
		deleted = left
		return len(deleted) == 0, nil
	})
	if err != nil && !errors.Is(err, errDeadline) {
		return // ctx ended
	}
	// Those left are terminating: stuckNamespaces reports them, with the
	// namespace controller's reason.
	slices.Sort(r.rep.Retained)
}

// leftCRDs lists, as retained, the CustomResourceDefinitions of the kinds
// the apps in scope declare (custom_resources) that are still there once
// those apps are gone: their controller went with its app, and Helm
// never deletes a CRD, so they stay until removed on purpose. An
// instance of one left behind would wait on a finalizer no controller
// removes; the CRD names the kind to look for.
func (r *run) leftCRDs(ctx context.Context, apps []*ir.App, after map[string]appStatus) {
	owner := map[string]string{} // "group/Kind" → an app declaring it, all gone
	for _, a := range apps {
		if !a.Destination.InCluster() {
			continue
		}
		for _, cr := range a.CustomResources {
			if after[a.Name].Exists {
				owner[cr.String()] = "" // its app is still there
				continue
			}
			if _, seen := owner[cr.String()]; !seen {
				owner[cr.String()] = a.Name
			}
		}
	}
	if len(owner) == 0 {
		return
	}
	cctx, cancel := r.client.Call(ctx)
	list, err := r.client.Dynamic.Resource(cluster.CRDs).List(cctx, metav1.ListOptions{})
	cancel()
	if err != nil {
		r.log.Warnf(r.phase, "crds", "cannot list CustomResourceDefinitions: %s", r.client.Explain(err))
		return
	}
	for _, c := range list.Items {
		group, _, _ := unstructured.NestedString(c.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(c.Object, "spec", "names", "kind")
		if app := owner[group+"/"+kind]; app != "" {
			r.rep.Retained = append(r.rep.Retained, fmt.Sprintf("CustomResourceDefinition %s (kind %s/%s of app %s, whose controller is gone; Helm leaves CRDs, delete it once no instance is left)", c.GetName(), group, kind, app))
		}
	}
	slices.Sort(r.rep.Retained)
}
