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
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/discovery"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/preflight"
)

// The last part of the orphan report (issue 24): objects that carry an
// app's instance label once the app's Application is gone. Argo CD
// deletes what it tracks; what it no longer tracks (a resource removed
// from the chart while pruning was off, one an operator or a hook made
// and labelled like the chart, one applied by hand) stays. platc does
// not set application.resourceTrackingMethod, so Argo CD 3 tracks by
// annotation, which no selector can match; the label is the one Helm
// charts put on everything they render (app.kubernetes.io/instance: the
// release, which Argo CD names after the Application unless
// release_name says otherwise), and the one Argo CD's label tracking
// writes. The scan lists every kind the API server serves that supports
// list, metadata only, with that label selector.
const InstanceLabel = "app.kubernetes.io/instance"

// Bounds of the scan: the whole of it, the kinds it lists, and the
// objects it reports (more are counted, not listed).
const (
	leftoverScan       = 60 * time.Second
	leftoverMaxKinds   = 1000
	leftoverMaxObjects = 100
	// leftoverGrace is how long an object found may take to go before
	// it is reported: the garbage collector and the endpoints controller
	// remove what was owned by, or mirrors, a deleted object a moment
	// after it.
	leftoverGrace = 15 * time.Second
)

// leftoverPermissions: listing every kind cluster-wide. The objects a
// chart or an operator left can be of any kind, and the platform does not
// declare the kinds its charts render, so nothing narrower finds them.
// Read only, and metadata only (no Secret's data is fetched); the
// executor already holds the deletion of every Application, which
// reaches further.
func (r *run) leftoverPermissions(apps []*ir.App) []preflight.Permission {
	if len(r.instanceValues(apps, nil)) == 0 {
		return nil
	}
	return []preflight.Permission{{Verb: "list", Group: "*", Resource: "*",
		Why: "to report objects left with an app's " + InstanceLabel + " label once its Application is gone (metadata only, every kind: a chart's leftovers can be of any kind)"}}
}

// instanceValues maps each label value that marks an app's objects to
// the app: its Application name and its Helm release names, for the apps
// in the cluster platc reaches whose Application is gone (all of them
// when after is nil). A value that is also a release of the bootstrap
// (the example's sealed-secrets app deploys the bootstrap's own chart)
// is left out: those objects belong to the primitives, which stay. So is
// a name too long to be a label value: nothing can carry it.
func (r *run) instanceValues(apps []*ir.App, after map[string]appStatus) map[string]string {
	boot := map[string]bool{}
	if rels, err := r.emitted().Releases(); err == nil {
		for _, rel := range rels {
			boot[rel.Name] = true
		}
	}
	out := map[string]string{}
	for _, a := range apps {
		if !a.Destination.InCluster() || (after != nil && after[a.Name].Exists) {
			continue
		}
		names := []string{a.Application}
		for _, s := range a.Sources {
			if s != nil && s.Helm != nil && s.Helm.ReleaseName != "" {
				names = append(names, s.Helm.ReleaseName)
			}
		}
		for _, n := range names {
			if _, seen := out[n]; seen || boot[n] || len(validation.IsValidLabelValue(n)) > 0 {
				continue
			}
			out[n] = a.Name
		}
	}
	return out
}

// leftovers reports, as orphans, the objects of every listable kind that
// carry the instance label of an app whose Application is gone. Objects
// with an owner go with it and are not listed (their owner is, when
// labelled); nor are those in a namespace being deleted (terminating, as
// stuckNamespaces read them; it reports the namespace). A kind that
// could not be listed is an orphan entry too: the report cannot call the
// cluster clean without it.
func (r *run) leftovers(ctx context.Context, apps []*ir.App, after map[string]appStatus, terminating map[string]bool) {
	values := r.instanceValues(apps, after)
	if len(values) == 0 {
		return
	}
	if r.client.Metadata == nil {
		r.log.Warnf(r.phase, "leftovers", "no metadata client: objects left with an app's label were not looked for")
		return
	}
	vals := make([]string, 0, len(values))
	for v := range values {
		vals = append(vals, v)
	}
	slices.Sort(vals)
	req, err := labels.NewRequirement(InstanceLabel, selection.In, vals)
	if err != nil { // the values were validated
		r.log.Warnf(r.phase, "leftovers", "cannot build the label selector: %v", err)
		return
	}
	selector := labels.NewSelector().Add(*req).String()
	sctx, cancel := context.WithTimeout(ctx, leftoverScan)
	defer cancel()

	kinds, err := r.listableKinds()
	var failed *discovery.ErrGroupDiscoveryFailed
	switch {
	case errors.As(err, &failed):
		// An aggregated API whose server is down serves nothing now;
		// the rest are scanned.
		groups := make([]string, 0, len(failed.Groups))
		for gv := range failed.Groups {
			groups = append(groups, gv.String())
		}
		slices.Sort(groups)
		r.log.Warnf(r.phase, "leftovers", "API groups not served, so not scanned for leftovers: %s", strings.Join(groups, ", "))
		r.rep.recommend("The API groups %s did not answer discovery, so objects of their kinds left with an app's %s label were not looked for; check them once their API server is back.", strings.Join(groups, ", "), InstanceLabel)
	case err != nil:
		r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "(any kind)", Name: "(not scanned)",
			Reason: fmt.Sprintf("could not discover the API server's kinds to look for objects labelled %s: %s", selector, r.client.Explain(err))})
		return
	}
	if len(kinds) > leftoverMaxKinds {
		r.log.Warnf(r.phase, "leftovers", "the API server serves %d listable kinds; only the first %d are scanned", len(kinds), leftoverMaxKinds)
		for _, k := range kinds[leftoverMaxKinds:] {
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: k.kind, Name: "(not scanned)", Reason: fmt.Sprintf("more than %d listable kinds: not looked at for objects labelled %s", leftoverMaxKinds, selector)})
		}
		kinds = kinds[:leftoverMaxKinds]
	}
	type found struct {
		k   listable
		ns  string
		obj string
		app string
		fin []string // set when it is being deleted
	}
	var hits []found
	more := 0
	for _, k := range kinds {
		cctx, ccancel := r.client.Call(sctx)
		list, err := r.client.Metadata.Resource(k.gvr).Namespace(metav1.NamespaceAll).List(cctx, metav1.ListOptions{LabelSelector: selector, Limit: leftoverMaxObjects + 1})
		ccancel()
		switch {
		case apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err):
			continue // the kind went away since discovery, or lists nothing
		case err != nil:
			reason := "could not be listed: " + r.client.Explain(err)
			if sctx.Err() != nil {
				reason = fmt.Sprintf("not looked at: the scan for leftovers ran out of its %s", human(leftoverScan))
			}
			r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: k.kind, Name: "(not scanned)", Reason: fmt.Sprintf("%s; objects labelled %s may be left", reason, selector)})
			continue
		}
		for _, o := range list.Items {
			if len(o.OwnerReferences) > 0 || terminating[o.Namespace] {
				continue
			}
			if len(hits) >= leftoverMaxObjects {
				more++
				continue
			}
			h := found{k: k, ns: o.Namespace, obj: o.Name, app: values[o.Labels[InstanceLabel]]}
			if o.DeletionTimestamp != nil {
				h.fin = append([]string{}, o.Finalizers...)
			}
			hits = append(hits, h)
		}
		if list.Continue != "" {
			more++ // at least one more than the page
		}
	}
	// What is still there after the grace is left behind.
	_ = r.poll(sctx, r.now().Add(leftoverGrace), func() (bool, error) {
		var still []found
		for _, h := range hits {
			cctx, ccancel := r.client.Call(sctx)
			_, err := r.client.Metadata.Resource(h.k.gvr).Namespace(h.ns).Get(cctx, h.obj, metav1.GetOptions{})
			ccancel()
			if !apierrors.IsNotFound(err) {
				still = append(still, h)
			}
		}
		hits = still
		return len(hits) == 0, nil
	})
	slices.SortFunc(hits, func(a, b found) int {
		return strings.Compare(a.k.kind+"\x00"+a.ns+"\x00"+a.obj, b.k.kind+"\x00"+b.ns+"\x00"+b.obj)
	})
	for _, h := range hits {
		reason := fmt.Sprintf("carries app %s's label %s, but its Application is gone and Argo CD no longer tracks it", h.app, InstanceLabel)
		if h.fin != nil {
			reason += "; being deleted, waiting on finalizers " + strings.Join(h.fin, ", ")
		}
		r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: h.k.kind, Namespace: h.ns, Name: h.obj, App: h.app, Reason: reason})
	}
	if more > 0 {
		r.rep.Orphans = append(r.rep.Orphans, Orphan{Kind: "(more)", Name: fmt.Sprintf("(over %d objects)", leftoverMaxObjects),
			Reason: fmt.Sprintf("more objects labelled %s than the report lists; kubectl get with that selector lists them", selector)})
	}
	if len(hits) > 0 {
		r.log.Warnf(r.phase, "leftovers", "%d objects still carry the instance label of an app whose Application is gone", len(hits))
	}
}

// listable is a kind the scan lists: its resource and the name the
// report gives it (Kind, with the group when it has one).
type listable struct {
	gvr  schema.GroupVersionResource
	kind string
}

// volumeKinds are reported by the volume policy (retained) and the
// namespace cleanup, which know when one is kept on purpose: a claim
// made from a chart's volumeClaimTemplates carries the app's label.
// Also skipped: v1 Endpoints, which mirror a Service (reported itself
// when left) and go with it, and ComponentStatus, the control plane's;
// both deprecated, so listing them only draws API server warnings.
var volumeKinds = map[string]bool{"/persistentvolumeclaims": true, "/persistentvolumes": true, "/namespaces": true,
	"snapshot.storage.k8s.io/volumesnapshots": true, "snapshot.storage.k8s.io/volumesnapshotcontents": true,
	"/endpoints": true, "/componentstatuses": true}

// listableKinds are the API server's preferred version of every kind
// that supports list, subresources aside, sorted; events are left out
// (they label nothing, and are many), and so are volumeKinds.
func (r *run) listableKinds() ([]listable, error) {
	lists, err := r.client.Kube.Discovery().ServerPreferredResources()
	var out []listable
	for _, l := range lists {
		gv, perr := schema.ParseGroupVersion(l.GroupVersion)
		if perr != nil {
			continue
		}
		for _, res := range l.APIResources {
			if strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") || res.Name == "events" || volumeKinds[gv.Group+"/"+res.Name] {
				continue
			}
			kind := res.Kind
			if gv.Group != "" {
				kind += "." + gv.Group
			}
			out = append(out, listable{gvr: gv.WithResource(res.Name), kind: kind})
		}
	}
	slices.SortFunc(out, func(a, b listable) int { return strings.Compare(a.kind, b.kind) })
	return out, err
}
