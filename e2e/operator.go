package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/platc/platc/compiler/ir"
)

// operators plays the software the platform's apps install, which does
// not exist here:
//
//   - every custom resource a simulated app creates gets the status of a
//     Healthy sample of its kind once the app's expected duration
//     (scaled) has passed since the resource appeared, or a Degraded
//     sample when the app is told to fail;
//   - every pod of a simulated app is released to kwok (annotation
//     platc.io/e2e-start) with that same delay, unless the app is told to
//     fail, so its Deployment becomes Available in about that time;
//   - Fix(app) is the operator recovering: the Healthy sample is written
//     and the pods are released;
//   - a slow operator (PlatformOptions.SlowKinds) takes its own, longer
//     time to write the status of its kind's instances, while the app's
//     pods start as usual: only the custom resource is late, which is
//     what a health rule for the kind must catch;
//   - a day-2 version of the platform (Platform.Change) brings its new
//     apps and kinds to the running operators (add).
//
// Argo CD then judges these objects with its own checks and platc's Lua.
type operators struct {
	e     *Env
	scale float64
	slow  map[string]time.Duration // kind → the slow operator's delay
	df    dynamicinformer.DynamicSharedInformerFactory

	mu      sync.Mutex
	samples *samples
	delay   map[string]time.Duration // app → scaled expected duration
	failing map[string]bool
	kinds   []schema.GroupVersionResource
	seen    map[string]bool
	// written is when each instance's status was written, by
	// "kind ns/name", for the scenarios' order checks.
	written map[string]time.Time
	// problems are the status writes the API server refused.
	problems []string
}

func (e *Env) startOperators(ctx context.Context, p *ir.Program, s *samples, scale float64, fail []string, slow map[string]time.Duration) (*operators, error) {
	o := &operators{e: e, scale: scale, slow: slow, failing: map[string]bool{}, seen: map[string]bool{}, written: map[string]time.Time{}}
	for _, f := range fail {
		o.failing[f] = true
	}
	// Pods of simulated apps, in every namespace.
	f := informers.NewSharedInformerFactoryWithOptions(e.Kube, 0,
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) { lo.LabelSelector = labelApp }))
	pods := f.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { o.release(ctx, obj, false) },
		UpdateFunc: func(_, obj any) { o.release(ctx, obj, false) },
	}); err != nil {
		return nil, err
	}
	f.Start(ctx.Done())

	// Instances of every simulated kind.
	o.df = dynamicinformer.NewFilteredDynamicSharedInformerFactory(e.Dynamic, 0, metav1.NamespaceAll,
		func(lo *metav1.ListOptions) { lo.LabelSelector = labelApp })
	if err := o.add(ctx, p, s); err != nil {
		return nil, err
	}

	// The CSI snapshot controller, simulated (no CSI driver or storage
	// here): a VolumeSnapshot of a claim becomes ready to use after
	// SnapshotDelay, not at once, so a teardown that did not wait for
	// readyToUse would be seen deleting first. Its time is recorded as
	// the status written of kind VolumeSnapshot.
	snaps := dynamicinformer.NewDynamicSharedInformerFactory(e.Dynamic, 0)
	if _, err := snaps.ForResource(volumeSnapshotGVR).Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return
			}
			size := "1Gi"
			ready := &sample{status: map[string]any{"readyToUse": true, "restoreSize": size,
				"boundVolumeSnapshotContentName": "snapcontent-" + string(u.GetUID()),
				"creationTime":                   time.Now().UTC().Format(time.RFC3339)}}
			go func() {
				select {
				case <-ctx.Done():
					return
				case <-time.After(SnapshotDelay):
				}
				ok, err := o.writeStatus(ctx, volumeSnapshotGVR, u.GetNamespace(), u.GetName(), ready)
				o.wrote(KindVolumeSnapshot, u.GetNamespace(), u.GetName(), ok, err)
			}()
		},
	}); err != nil {
		return nil, err
	}
	snaps.Start(ctx.Done())
	return o, nil
}

// add brings the apps and kinds of p (day 0's platform, or a later
// version of it) to the operators: each app's delay, an informer for
// each simulated kind not watched yet, and p's samples. The kinds' CRDs
// must exist (simulatedCluster).
func (o *operators) add(ctx context.Context, p *ir.Program, s *samples) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.samples = s
	if o.delay == nil {
		o.delay = map[string]time.Duration{}
	}
	for _, a := range p.Apps {
		o.delay[a.Name] = scaled(a.ExpectedDuration, o.scale)
	}
	for _, a := range p.Apps {
		for _, cr := range a.CustomResources {
			if !simulatedKind(cr) || o.seen[cr.String()] {
				continue
			}
			o.seen[cr.String()] = true
			gvr := schema.GroupVersionResource{Group: cr.Group, Version: "v1", Resource: strings.ToLower(cr.Kind) + "s"}
			o.kinds = append(o.kinds, gvr)
			kind := cr.String()
			if _, err := o.df.ForResource(gvr).Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
				AddFunc: func(obj any) { o.schedule(ctx, gvr, kind, obj) },
			}); err != nil {
				return err
			}
		}
	}
	// Start runs the informers not running yet.
	o.df.Start(ctx.Done())
	return nil
}

// StatusWritten is when the operator wrote the status of kind's instance
// ns/name, and whether it has.
func (o *operators) StatusWritten(kind, ns, name string) (time.Time, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.written[kind+" "+ns+"/"+name]
	return t, ok
}

// SnapshotDelay is how long the simulated snapshot controller takes to
// make a VolumeSnapshot ready to use; KindVolumeSnapshot is the kind
// StatusWritten records it under.
const (
	SnapshotDelay      = 3 * time.Second
	KindVolumeSnapshot = "VolumeSnapshot"
)

var volumeSnapshotGVR = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots"}

// scaled is an expected duration in simulated time: one minute becomes
// scale minutes (the default scale, 1/60, makes it one second).
func scaled(d time.Duration, scale float64) time.Duration {
	return time.Duration(float64(d) * scale).Round(10 * time.Millisecond)
}

func (o *operators) isFailing(app string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failing[app]
}

// release lets kwok start a simulated app's pod after the app's delay.
// now skips the delay (an operator that recovered).
func (o *operators) release(ctx context.Context, obj any, now bool) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodPending || pod.Annotations[annotationStart] != "" {
		return
	}
	app := pod.Labels[labelApp]
	if o.isFailing(app) {
		return
	}
	o.mu.Lock()
	d := o.delay[app]
	o.mu.Unlock()
	if now {
		d = 0
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		annotationStart: "true", annotationDelay: d.String(),
	}}})
	_, _ = o.e.Kube.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
}

// schedule writes an instance's status after its app's delay.
func (o *operators) schedule(ctx context.Context, gvr schema.GroupVersionResource, kind string, obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	app := u.GetLabels()[labelApp]
	ns, name := u.GetNamespace(), u.GetName()
	o.mu.Lock()
	d, ok := o.slow[kind]
	if !ok {
		d = o.delay[app]
	}
	o.mu.Unlock()
	go func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
		o.mu.Lock()
		sm := o.samples.healthy[kind]
		if o.failing[app] {
			sm = o.samples.degraded[kind]
		}
		o.mu.Unlock()
		ok, err := o.writeStatus(ctx, gvr, ns, name, sm)
		o.wrote(kind, ns, name, ok, err)
	}()
}

// statusBackoff spaces the retries of a status write (about 4s in all),
// past the conflicts of a busy API server.
var statusBackoff = wait.Backoff{Steps: 6, Duration: 200 * time.Millisecond, Factor: 1.5, Jitter: 0.1}

// writeStatus replaces an instance's status with the sample's, as of the
// generation it has now, and says whether it did. An instance deleted
// meanwhile, or the environment stopping, is no error; an API server
// that refuses every retry is.
func (o *operators) writeStatus(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, sm *sample) (bool, error) {
	var ri dynamic.ResourceInterface = o.e.Dynamic.Resource(gvr)
	if ns != "" {
		ri = o.e.Dynamic.Resource(gvr).Namespace(ns)
	}
	err := retry.OnError(statusBackoff, func(err error) bool { return !apierrors.IsNotFound(err) && ctx.Err() == nil }, func() error {
		cur, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Object["status"] = sm.statusFor(cur.GetGeneration())
		_, err = ri.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || ctx.Err() != nil:
		return false, nil
	default:
		return false, fmt.Errorf("simulated operator: writing the status of %s %s/%s failed after %d attempts: %w", gvr.Resource, ns, name, statusBackoff.Steps, err)
	}
}

// wrote notes that an instance's status was written, or records why
// it could not be.
func (o *operators) wrote(kind, ns, name string, ok bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		o.problems = append(o.problems, err.Error())
	}
	if ok {
		o.written[kind+" "+ns+"/"+name] = time.Now().UTC()
	}
}

// Fix makes failing apps recover: their instances get the Healthy sample
// and their pods start.
func (o *operators) Fix(ctx context.Context, apps []string) error {
	o.mu.Lock()
	for _, a := range apps {
		delete(o.failing, a)
	}
	kinds, healthy := slices.Clone(o.kinds), o.samples.healthy
	o.mu.Unlock()
	sel := labelApp + " in (" + strings.Join(apps, ",") + ")"
	pods, err := o.e.Kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		o.release(ctx, &pods.Items[i], true)
	}
	for _, gvr := range kinds {
		list, err := o.e.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return fmt.Errorf("%s: %w", gvr.Resource, err)
		}
		for _, u := range list.Items {
			kind := gvr.Group + "/" + u.GetKind()
			ok, err := o.writeStatus(ctx, gvr, u.GetNamespace(), u.GetName(), healthy[kind])
			if err != nil {
				return err
			}
			o.wrote(kind, u.GetNamespace(), u.GetName(), ok, nil)
		}
	}
	return nil
}

// mapped is a resource and whether it is namespaced.
type mapped struct {
	schema.GroupVersionResource
	namespaced bool
}

// resourceFor finds the resource of an object's kind through discovery.
func (e *Env) resourceFor(u *unstructured.Unstructured) (mapped, error) {
	e.mapperOnce.Do(func() {
		e.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(e.Kube.Discovery()))
	})
	gvk := u.GroupVersionKind()
	m, err := e.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		// A kind created since the last discovery: look again.
		e.mapper.Reset()
		if m, err = e.mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
			return mapped{}, err
		}
	}
	return mapped{m.Resource, m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}
