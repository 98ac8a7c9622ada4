package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"
)

var eventBusGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "eventbus"}

// startEventsController is simulated: Argo Events' controller, as far as
// the bootstrap sees it. The argo-events stand-in's controller pod runs
// nothing (kwok), but the gitops-handoff role waits for the platc-events
// Application to be Healthy, and Argo CD judges an EventBus by the
// Deployed condition the real controller sets once JetStream runs. So
// every EventBus gets the status of Argo CD's own Healthy EventBus
// fixture (resource_customizations/argoproj.io/EventBus/testdata/
// healthy.yaml in the argo-cd module source); Argo CD's Lua judges it.
// Event sources and sensors need no status: Argo CD has no health check
// for them.
func (e *Env) startEventsController(ctx context.Context) error {
	fixture := filepath.Join(e.opts.Src, "argo-cd", "resource_customizations", "argoproj.io", "EventBus", "testdata", "healthy.yaml")
	b, err := os.ReadFile(fixture)
	if err != nil {
		return fmt.Errorf("the simulated Argo Events controller's sample: %w", err)
	}
	var sample struct {
		Status map[string]any `json:"status"`
	}
	if err := yaml.Unmarshal(b, &sample); err != nil || sample.Status == nil {
		return fmt.Errorf("%s: no status (%v)", fixture, err)
	}
	patch, err := json.Marshal(map[string]any{"status": sample.Status})
	if err != nil {
		return err
	}
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		// Before the chart installs the CRD, the list fails: a
		// controller not yet installed does nothing. A failed patch is
		// tried again on the next round, as the status is still absent.
		list, err := e.Dynamic.Resource(eventBusGVR).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, u := range list.Items {
			if _, ok := u.Object["status"]; ok {
				continue
			}
			if _, err := e.Dynamic.Resource(eventBusGVR).Namespace(u.GetNamespace()).Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err == nil {
				e.logf("simulated Argo Events controller: EventBus %s/%s deployed (Argo CD's Healthy fixture)", u.GetNamespace(), u.GetName())
			}
		}
	}, 500*time.Millisecond)
	return nil
}
