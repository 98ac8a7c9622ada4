package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// Timeline events, as the issue and docs/e2e.md define them.
const (
	OperationStarted  = "operation-started"
	OperationFinished = "operation-finished"
	Healthy           = "healthy"
	Degraded          = "degraded"
	Deleted           = "deleted"
	// DeletionRequested: the Application got its deletionTimestamp (a
	// delete was asked for; Deleted is when its finalizers let it go).
	DeletionRequested = "deletion-requested"
)

// Event is one observed change of an Application.
type Event struct {
	App   string    `json:"app"`
	Event string    `json:"event"`
	At    time.Time `json:"at"`
	// Revision is the operation's sync revision, for operation events.
	Revision string `json:"revision,omitempty"`
}

var applicationGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// Timeline records what happens to Applications by watching them, not by
// asking platc. At is when the watch delivered the change: events of one
// watch arrive in the order the API server committed them, so if a
// dependency's Healthy status was written before a dependent's sync
// operation, it is also recorded before it (Argo CD's own timestamps
// have only second precision).
type Timeline struct {
	mu     sync.Mutex
	events []Event
	// per app: the last operation startedAt seen, whether it finished,
	// its last health.
	ops     map[string]string
	fin     map[string]bool
	health  map[string]string
	healthy map[string]bool
	// deleting: the deletionTimestamp seen per app.
	deleting map[string]string
	// seen is the resourceVersion of each app the handlers have
	// recorded, removed when its deletion is recorded (Settle).
	seen map[string]uint64
	list func(context.Context) (*unstructured.UnstructuredList, error)
}

// Watch starts recording the Applications of namespace ns.
func (e *Env) Watch(ctx context.Context, ns string) (*Timeline, error) {
	t := &Timeline{ops: map[string]string{}, fin: map[string]bool{}, health: map[string]string{}, healthy: map[string]bool{}, deleting: map[string]string{}, seen: map[string]uint64{}}
	t.list = func(ctx context.Context) (*unstructured.UnstructuredList, error) {
		return e.Dynamic.Resource(applicationGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(e.Dynamic, 0, ns, nil)
	inf := f.ForResource(applicationGVR).Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.observe(obj) },
		UpdateFunc: func(_, obj any) { t.observe(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok {
				t.add(Event{App: u.GetName(), Event: Deleted})
				t.mu.Lock()
				delete(t.seen, u.GetName())
				t.mu.Unlock()
			}
		},
	})
	if err != nil {
		return nil, err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, errors.New("timeline: Application informer did not sync")
	}
	return t, nil
}

func (t *Timeline) add(ev Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ev.At = time.Now().UTC()
	t.events = append(t.events, ev)
}

func (t *Timeline) observe(obj any) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	app := u.GetName()
	started, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "startedAt")
	phase, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "phase")
	rev, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "syncResult", "revision")
	health, _, _ := unstructured.NestedString(u.Object, "status", "health", "status")
	t.mu.Lock()
	defer t.mu.Unlock()
	if rv, err := strconv.ParseUint(u.GetResourceVersion(), 10, 64); err == nil {
		t.seen[app] = rv
	}
	now := time.Now().UTC()
	if dt := u.GetDeletionTimestamp(); dt != nil && t.deleting[app] != dt.String() {
		t.deleting[app] = dt.String()
		t.events = append(t.events, Event{App: app, Event: DeletionRequested, At: now})
	}
	if started != "" && started != t.ops[app] {
		t.ops[app] = started
		t.fin[app] = false
		t.events = append(t.events, Event{App: app, Event: OperationStarted, At: now})
	}
	if started != "" && !t.fin[app] && (phase == "Succeeded" || phase == "Failed" || phase == "Error") {
		t.fin[app] = true
		t.events = append(t.events, Event{App: app, Event: OperationFinished, At: now, Revision: rev})
	}
	if health != t.health[app] {
		t.health[app] = health
		if health == "Healthy" && !t.healthy[app] {
			t.healthy[app] = true
			t.events = append(t.events, Event{App: app, Event: Healthy, At: now})
		}
		if health == "Degraded" {
			t.events = append(t.events, Event{App: app, Event: Degraded, At: now})
		}
	}
}

// Events returns a copy of what was recorded so far.
func (t *Timeline) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.events)
}

// Settle waits until the watch has delivered, and the timeline
// recorded, every change to the Applications the API server committed
// before Settle was called: a fresh list's objects are each recorded at
// their version or later, and each app recorded but absent from the list
// was created after it. (resourceVersions are compared as numbers: they
// are etcd's revisions, in order, on this one API server.) It fails,
// naming what the watch has not delivered, after limit.
func (t *Timeline) Settle(ctx context.Context, limit time.Duration) error {
	var behind []string
	var listErr error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		list, err := t.list(ctx)
		if err != nil {
			listErr = err // the last comparison stays what is reported
			return false, nil
		}
		at, err := strconv.ParseUint(list.GetResourceVersion(), 10, 64)
		if err != nil {
			return false, fmt.Errorf("the Application list's resourceVersion %q: %w", list.GetResourceVersion(), err)
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		behind = nil
		listed := map[string]bool{}
		for _, u := range list.Items {
			listed[u.GetName()] = true
			if rv, _ := strconv.ParseUint(u.GetResourceVersion(), 10, 64); t.seen[u.GetName()] < rv {
				behind = append(behind, fmt.Sprintf("%s at version %d (recorded %d)", u.GetName(), rv, t.seen[u.GetName()]))
			}
		}
		for app, rv := range t.seen {
			if !listed[app] && rv <= at {
				behind = append(behind, app+"'s deletion")
			}
		}
		slices.Sort(behind)
		return len(behind) == 0, nil
	})
	if err != nil && wait.Interrupted(err) {
		if behind == nil {
			return fmt.Errorf("the Application watch's progress could not be checked within %s: listing Applications: %v", limit, listErr)
		}
		return fmt.Errorf("the Application watch did not catch up with the API server within %s: not yet recorded: %s", limit, strings.Join(behind, "; "))
	}
	return err
}

// Mark returns the number of events so far, for Since.
func (t *Timeline) Mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.events)
}

// Since returns the events recorded after mark.
func (t *Timeline) Since(mark int) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.events[mark:])
}

// First returns the time of app's first event of kind, and whether
// there was one, among evs.
func First(evs []Event, app, kind string) (time.Time, bool) {
	for _, ev := range evs {
		if ev.App == app && ev.Event == kind {
			return ev.At, true
		}
	}
	return time.Time{}, false
}

// Last returns the time of app's last event of kind among evs.
func Last(evs []Event, app, kind string) (time.Time, bool) {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].App == app && evs[i].Event == kind {
			return evs[i].At, true
		}
	}
	return time.Time{}, false
}

// WriteFile writes the timeline as JSON.
func (t *Timeline) WriteFile(path string) error {
	b, err := json.MarshalIndent(t.Events(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
