package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/internal/testenv"
)

// Settle returns only once the timeline has recorded every change the
// API server committed before it, deletions included, on a real API
// server (internal/testenv's, which serves the Application CRD); and a
// timeline that cannot catch up fails, naming what it misses.
func TestTimelineSettle(t *testing.T) {
	srv := testenv.Require(t)
	kc, dc := srv.Clients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := "settle-test"
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tl, err := (&Env{Dynamic: dc}).Watch(ctx, ns)
	if err != nil {
		t.Fatal(err)
	}
	ri := dc.Resource(applicationGVR).Namespace(ns)
	for i := 0; i < 5; i++ {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": fmt.Sprintf("app-%d", i), "namespace": ns},
			"spec": map[string]any{
				"project":     "default",
				"source":      map[string]any{"repoURL": "https://git.example.test/x.git", "path": "."},
				"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": ns},
			},
		}}
		if _, err := ri.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Health written, then two of them deleted, with no pause: Settle
	// must see every one of these.
	for i := 0; i < 5; i++ {
		u, err := ri.Get(ctx, fmt.Sprintf("app-%d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(u.Object, "Healthy", "status", "health", "status")
		if _, err := ri.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"app-1", "app-3"} {
		if err := ri.Delete(ctx, n, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tl.Settle(ctx, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	healthy, deleted := 0, 0
	for _, ev := range tl.Events() {
		switch ev.Event {
		case Healthy:
			healthy++
		case Deleted:
			deleted++
		}
	}
	if healthy != 5 || deleted != 2 {
		t.Errorf("after Settle the timeline holds %d healthy and %d deleted events, want 5 and 2: %v", healthy, deleted, tl.Events())
	}

	// A timeline whose watch has stopped cannot catch up.
	stopped, stop := context.WithCancel(ctx)
	tl2, err := (&Env{Dynamic: dc}).Watch(stopped, ns)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	time.Sleep(200 * time.Millisecond) // the informer's watch ends
	if err := ri.Delete(ctx, "app-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = tl2.Settle(ctx, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "not yet recorded: app-0's deletion") {
		t.Errorf("a stopped watch: Settle said %v", err)
	}
}
