package snapshot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/executor/cluster"
)

// Expect is a critical component the platform's bootstrap installs: the
// workload of a release whose app.kubernetes.io/component label (the
// upstream charts') is Component, or whose name is <Release>-<Component>
// (the charts' default naming), in Namespace.
type Expect struct {
	Component string // application-controller, repo-server, server, workflow-controller, controller-manager
	Namespace string
	Release   string
	// Title names it for people: "Argo CD application controller".
	Title string
}

// Options say what to read and how to attribute it.
type Options struct {
	Action, Platform, Environment string
	Now                           time.Time
	ArgoCDNamespace               string
	// Applications maps each platform Application's name to its app.
	Applications map[string]string
	// Instances maps each app.kubernetes.io/instance value that marks an
	// app's objects (its Application, its Helm release names) to the app.
	Instances map[string]string
	// Releases are the bootstrap's Helm release names; KnownCRDs maps the
	// CRDs their charts install from crds/ (which Helm does not annotate)
	// to the release.
	Releases  []string
	KnownCRDs map[string]string
	// Components are the critical components; the caller reads them
	// (Components) and hands them in, so validate and the snapshot judge
	// from one read.
	Components []Workload
	// Nodes and ApplicationObjects are the run's own lists (Phase 0's
	// Ready check; the Applications in ArgoCDNamespace, which the run
	// judges the apps by), handed in so that nothing is listed twice.
	Nodes              Listed[corev1.Node]
	ApplicationObjects Listed[unstructured.Unstructured]
}

// Listed is one list the run made: its items, or why it failed.
type Listed[T any] struct {
	Items []T
	Err   error
}

// first are the first max of l's items, and whether more were left out.
func (l Listed[T]) first(max int) ([]T, bool) {
	if len(l.Items) > max {
		return l.Items[:max], true
	}
	return l.Items, false
}

// pageSize is the page size of every list: a large cluster is read in
// pages, not one response.
const pageSize = 500

// Collect reads the cluster's state: the namespaces and CRDs itself, the
// rest from what the run already read (Options). A part that cannot be
// read is named in Unread, and the rest is still read.
func Collect(ctx context.Context, c *cluster.Client, version string, o Options) *Snapshot {
	s := &Snapshot{Format: Format, TakenAt: o.Now.UTC().Truncate(time.Second), Action: o.Action, Platform: o.Platform,
		Environment: o.Environment, Server: c.Host, KubernetesVersion: version,
		Nodes: []Node{}, Namespaces: []string{}, CRDs: []CRD{}, Components: o.Components, Applications: []Application{}}
	if s.Components == nil {
		s.Components = []Workload{}
	}
	unread := func(what string, err error) {
		s.Unread = append(s.Unread, fmt.Sprintf("%s: %s", what, c.Explain(err)))
	}
	truncated := func(what string, kept int, more bool) {
		if more {
			s.Truncated = append(s.Truncated, fmt.Sprintf("%s: the first %d listed, more left out", what, kept))
		}
	}

	nodes, more := o.Nodes.first(MaxNodes)
	for i := range nodes {
		s.Nodes = append(s.Nodes, node(&nodes[i]))
	}
	if o.Nodes.Err != nil {
		unread("nodes", o.Nodes.Err)
	}
	truncated("nodes", len(s.Nodes), more)

	more, err := pages(ctx, c, MaxNamespaces, func(ctx context.Context, opts metav1.ListOptions) (string, int, error) {
		l, err := c.Kube.CoreV1().Namespaces().List(ctx, opts)
		if err != nil {
			return "", 0, err
		}
		for _, n := range l.Items {
			s.Namespaces = append(s.Namespaces, n.Name)
		}
		return l.Continue, len(l.Items), nil
	})
	if err != nil {
		unread("namespaces", err)
	}
	truncated("namespaces", len(s.Namespaces), more)

	more, err = pages(ctx, c, MaxCRDs, func(ctx context.Context, opts metav1.ListOptions) (string, int, error) {
		l, err := c.Dynamic.Resource(cluster.CRDs).List(ctx, opts)
		if err != nil {
			return "", 0, err
		}
		for i := range l.Items {
			s.CRDs = append(s.CRDs, crd(&l.Items[i], o))
		}
		return l.GetContinue(), len(l.Items), nil
	})
	if err != nil {
		unread("CRDs", err)
	}
	truncated("CRDs", len(s.CRDs), more)

	apps, more := o.ApplicationObjects.first(MaxApplications)
	for i := range apps {
		if app, ok := o.Applications[apps[i].GetName()]; ok {
			s.Applications = append(s.Applications, application(&apps[i], app))
		}
	}
	if err := o.ApplicationObjects.Err; err != nil && !noKind(err) {
		unread("Applications in namespace "+o.ArgoCDNamespace, err)
	}
	truncated("Applications", len(s.Applications), more)
	s.Sort()
	return s
}

// pages calls list page by page until there are no more or max items
// were read; more says the bound left some out.
func pages(ctx context.Context, c *cluster.Client, max int, list func(context.Context, metav1.ListOptions) (string, int, error)) (bool, error) {
	seen, cont := 0, ""
	for {
		cctx, cancel := c.Call(ctx)
		next, n, err := list(cctx, metav1.ListOptions{Limit: pageSize, Continue: cont})
		cancel()
		if err != nil {
			return false, err
		}
		seen += n
		if next == "" {
			return false, nil
		}
		if seen >= max {
			return true, nil
		}
		cont = next
	}
}

// noKind: the Application CRD is not installed (no Argo CD yet), which is
// not an error here: there are no Applications.
func noKind(err error) bool { return apierrors.IsNotFound(err) || meta.IsNoMatchError(err) }

func node(n *corev1.Node) Node {
	out := Node{Name: n.Name, Allocatable: map[string]string{}}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			out.Ready = c.Status == corev1.ConditionTrue
		}
	}
	for k, v := range n.Status.Allocatable {
		out.Allocatable[string(k)] = v.String()
	}
	for i, t := range n.Spec.Taints {
		if i == MaxTaints {
			break
		}
		out.Taints = append(out.Taints, Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}

// Annotations and labels that say who made an object.
const (
	trackingID     = "argocd.argoproj.io/tracking-id"
	instanceLabel  = "app.kubernetes.io/instance"
	helmRelease    = "meta.helm.sh/release-name"
	componentLabel = "app.kubernetes.io/component"
)

func crd(u *unstructured.Unstructured, o Options) CRD {
	out := CRD{Name: u.GetName(), Owner: OwnerNone, Versions: []string{}}
	out.Group, _, _ = unstructured.NestedString(u.Object, "spec", "group")
	vs, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range vs {
		if m, ok := v.(map[string]any); ok && len(out.Versions) < MaxVersions {
			if name, ok := m["name"].(string); ok {
				out.Versions = append(out.Versions, name)
			}
		}
	}
	slices.Sort(out.Versions)
	out.Owner, out.OwnedBy = owner(u, o)
	return out
}

// owner decides who owns a CRD: a platform app when Argo CD tracks it for
// one of the platform's Applications (its tracking-id annotation starts
// with the Application's name, "<namespace>_" first for an Application
// outside Argo CD's namespace) or it carries an app's instance label;
// else the bootstrap when one of its releases installed it (Helm's
// release annotation, the release's instance label, or a CRD its chart
// installs from crds/, which Helm leaves unannotated); else none.
func owner(u *unstructured.Unstructured, o Options) (string, string) {
	ann, labels := u.GetAnnotations(), u.GetLabels()
	if id := ann[trackingID]; id != "" {
		name, _, _ := strings.Cut(id, ":")
		if _, after, ok := strings.Cut(name, "_"); ok {
			name = after
		}
		if app, ok := o.Applications[name]; ok {
			return OwnerApp, app
		}
	}
	if app, ok := o.Instances[labels[instanceLabel]]; ok {
		return OwnerApp, app
	}
	for _, v := range []string{ann[helmRelease], labels[instanceLabel]} {
		if v != "" && slices.Contains(o.Releases, v) {
			return OwnerBootstrap, v
		}
	}
	if rel, ok := o.KnownCRDs[u.GetName()]; ok {
		return OwnerBootstrap, rel
	}
	return OwnerNone, ""
}

func application(u *unstructured.Unstructured, app string) Application {
	out := Application{Name: u.GetName(), App: app}
	out.Sync, _, _ = unstructured.NestedString(u.Object, "status", "sync", "status")
	out.Health, _, _ = unstructured.NestedString(u.Object, "status", "health", "status")
	out.Revision, _, _ = unstructured.NestedString(u.Object, "status", "sync", "revision")
	if revs, _, _ := unstructured.NestedStringSlice(u.Object, "status", "sync", "revisions"); len(revs) > 0 {
		out.Revision = strings.Join(revs, ",")
	}
	return out
}

// Components reads each expected component's workload: its Deployment or
// StatefulSet among those labelled with the release's instance label in
// its namespace. Read only (list, in those namespaces).
func Components(ctx context.Context, c *cluster.Client, expect []Expect) []Workload {
	type key struct{ ns, release string }
	listed := map[key][]workload{}
	errs := map[key]error{}
	out := make([]Workload, 0, len(expect))
	for _, e := range expect {
		k := key{e.Namespace, e.Release}
		if _, done := listed[k]; !done && errs[k] == nil {
			ws, err := workloads(ctx, c, e.Namespace, e.Release)
			if err != nil {
				errs[k] = err
			} else {
				listed[k] = ws
			}
		}
		w := Workload{Component: e.Title, Namespace: e.Namespace}
		if err := errs[k]; err != nil {
			w.Status, w.Message = Unread, c.Explain(err)
			out = append(out, w)
			continue
		}
		i := slices.IndexFunc(listed[k], func(o workload) bool {
			return o.meta.Labels[componentLabel] == e.Component || o.meta.Name == e.Release+"-"+e.Component
		})
		if i >= 0 {
			o := listed[k][i]
			w.Kind, w.Name = o.kind, o.meta.Name
			w.Replicas, w.Ready, w.Version = replicas(o.replicas), o.ready, imageTag(o.containers)
		}
		switch {
		case i < 0:
			w.Status = Missing
			w.Message = fmt.Sprintf("no Deployment or StatefulSet of release %s with %s=%s or named %s-%s", e.Release, componentLabel, e.Component, e.Release, e.Component)
		case w.Replicas == 0:
			w.Status, w.Message = NotReady, "scaled to 0 replicas"
		case w.Ready < w.Replicas:
			w.Status, w.Message = NotReady, fmt.Sprintf("%d of %d replicas Ready", w.Ready, w.Replicas)
		default:
			w.Status = Ready
		}
		out = append(out, w)
	}
	return out
}

// workload is what Components judges of a Deployment or a StatefulSet.
type workload struct {
	kind       string
	meta       metav1.ObjectMeta
	replicas   *int32
	ready      int32
	containers []corev1.Container
}

// workloads lists the Deployments, then the StatefulSets, of release in
// ns, each kind sorted by name: a component matched by both kinds, or by
// two of one kind, is the same one every time, a Deployment first.
func workloads(ctx context.Context, c *cluster.Client, ns, release string) ([]workload, error) {
	sel := metav1.ListOptions{LabelSelector: instanceLabel + "=" + release}
	cctx, cancel := c.Call(ctx)
	dl, err := c.Kube.AppsV1().Deployments(ns).List(cctx, sel)
	cancel()
	if err != nil {
		return nil, err
	}
	cctx, cancel = c.Call(ctx)
	sl, err := c.Kube.AppsV1().StatefulSets(ns).List(cctx, sel)
	cancel()
	if err != nil {
		return nil, err
	}
	var ds, ss []workload
	for _, d := range dl.Items {
		ds = append(ds, workload{"Deployment", d.ObjectMeta, d.Spec.Replicas, d.Status.ReadyReplicas, d.Spec.Template.Spec.Containers})
	}
	for _, s := range sl.Items {
		ss = append(ss, workload{"StatefulSet", s.ObjectMeta, s.Spec.Replicas, s.Status.ReadyReplicas, s.Spec.Template.Spec.Containers})
	}
	byName := func(a, b workload) int { return strings.Compare(a.meta.Name, b.meta.Name) }
	slices.SortFunc(ds, byName)
	slices.SortFunc(ss, byName)
	return append(ds, ss...), nil
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1 // the API server's default
	}
	return *p
}

// imageTag is the first container's image tag ("" for an image by digest
// only or without a tag).
func imageTag(cs []corev1.Container) string {
	if len(cs) == 0 {
		return ""
	}
	img, _, _ := strings.Cut(cs[0].Image, "@")
	if i := strings.LastIndex(img, ":"); i > strings.LastIndex(img, "/") {
		return img[i+1:]
	}
	return ""
}
