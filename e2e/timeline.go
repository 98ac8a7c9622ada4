package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
}

// Watch starts recording the Applications of namespace ns.
func (e *Env) Watch(ctx context.Context, ns string) (*Timeline, error) {
	t := &Timeline{ops: map[string]string{}, fin: map[string]bool{}, health: map[string]string{}, healthy: map[string]bool{}, deleting: map[string]string{}}
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
