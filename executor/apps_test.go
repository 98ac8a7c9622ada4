package executor

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/emit/argo"
)

// TestNothingToDo: the executor reads an Application as the step does
// and applies the step's rule to it (step.Application.Converged) with
// what the app's task would ask for (argo.SyncInputOf).
func TestNothingToDo(t *testing.T) {
	p := compileEnv(t, day1, "staging")
	a := p.Apps[0]
	in := argo.SyncInputOf(a)
	app := func(sync, health, phase string, automated bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": a.Application},
			"status": map[string]any{
				"sync":           map[string]any{"status": sync, "revision": in.ExpectRevision},
				"health":         map[string]any{"status": health},
				"operationState": map[string]any{"phase": phase},
			},
		}}
		if automated {
			u.Object["spec"] = map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"selfHeal": in.SelfHeal, "prune": in.Prune}}}
		}
		return u
	}
	for _, c := range []struct {
		name string
		u    *unstructured.Unstructured
		want bool
	}{
		{"converged, automated sync as asked", app("Synced", "Healthy", "Succeeded", in.AutoSync), true},
		{"out of sync", app("OutOfSync", "Healthy", "Succeeded", in.AutoSync), false},
		{"last operation failed", app("Synced", "Healthy", "Failed", in.AutoSync), false},
		{"operation running", app("Synced", "Healthy", "Running", in.AutoSync), false},
		{"not a decodable Application", &unstructured.Unstructured{Object: map[string]any{"status": "broken"}}, false},
	} {
		if got := nothingToDo(a, c.u); got != c.want {
			t.Errorf("%s: nothingToDo = %t, want %t", c.name, got, c.want)
		}
	}
	if in.AutoSync {
		if nothingToDo(a, app("Synced", "Healthy", "Succeeded", false)) {
			t.Error("an app that asks for automated sync, without it, has nothing to do")
		}
	}
	// skippable also needs the executor's own checks: Exists, current.
	if (appStatus{Exists: true, Health: "Healthy", Sync: "Synced", Stale: "compared another revision", NothingToDo: true}).skippable() {
		t.Error("a stale comparison is skippable")
	}
	if !(appStatus{Exists: true, Health: "Healthy", Sync: "Synced", NothingToDo: true}).skippable() {
		t.Error("a converged, current app is not skippable")
	}
}
