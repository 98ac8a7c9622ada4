package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
)

// What an app's simulated manifests carry, and what the environment's
// loops look for.
const (
	labelApp        = "platc.io/e2e-app"
	annotationStart = "platc.io/e2e-start"
	annotationDelay = "platc.io/e2e-ready-after"
)

// appContent is the simulated content of one app's source: what its
// chart or Git path holds here instead of the real software. A
// Deployment (kwok runs its pods), one instance of every kind in the
// app's custom_resources (the simulated operator writes their status),
// a volume claim for an app that holds data, and the hook manifests the
// app declares.
func appContent(a *ir.App, d time.Duration, s *samples) (map[string][]byte, error) {
	files := map[string][]byte{}
	put := func(name string, obj map[string]any) error {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		files[name] = b
		return nil
	}
	labels := map[string]any{"app.kubernetes.io/name": a.Name, labelApp: a.Name}
	// The Deployment must have made progress within its deadline, or
	// Argo CD calls it Degraded: generous for an app released on time,
	// short enough that an app told to fail fails within seconds.
	deadline := int(math.Ceil(2*d.Seconds())) + 20
	if err := put("deployment.yaml", map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": a.Name, "labels": labels},
		"spec": map[string]any{
			"replicas":                1,
			"progressDeadlineSeconds": deadline,
			"selector":                map[string]any{"matchLabels": map[string]any{labelApp: a.Name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{
					"containers": []any{map[string]any{
						"name": "app", "image": "registry.invalid/platc-e2e/" + a.Name + ":simulated",
					}},
				},
			},
		},
	}); err != nil {
		return nil, err
	}
	for _, cr := range a.CustomResources {
		if simulatedKind(cr) {
			// The healthy sample's spec: checks often compare status
			// with spec (replicas, versions).
			spec := map[string]any{"simulated": true}
			if sm := s.healthy[cr.String()]; sm != nil && sm.spec != nil {
				spec = sm.spec
			}
			if err := put("cr-"+strings.ToLower(cr.Kind)+".yaml", map[string]any{
				"apiVersion": cr.Group + "/v1", "kind": cr.Kind,
				"metadata": map[string]any{"name": a.Name, "labels": labels},
				"spec":     spec,
			}); err != nil {
				return nil, err
			}
		}
	}
	if holdsData(a) {
		if err := put("volume-claim.yaml", map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": claimName(a), "labels": labels},
			"spec": map[string]any{
				"accessModes":      []any{"ReadWriteOnce"},
				"storageClassName": "",
				"volumeName":       volumeName(a),
				"resources":        map[string]any{"requests": map[string]any{"storage": "1Gi"}},
			},
		}); err != nil {
			return nil, err
		}
	}
	for _, h := range a.Hooks {
		b, err := os.ReadFile(filepath.Join(h.Dir, filepath.FromSlash(h.Manifest)))
		if err != nil {
			return nil, fmt.Errorf("app %s: hook %s: %w", a.Name, h.Name, err)
		}
		files["hook-"+h.Name+".yaml"] = b
	}
	return files, nil
}

// simulatedKind reports whether the environment simulates cr's operator.
// Argo's own kinds are real here, served by the real controllers' CRDs.
func simulatedKind(cr ir.CustomResource) bool {
	return cr.Group != "argoproj.io"
}

// holdsData is the environment's stand-in for "this app's software keeps
// data in volumes": a teardown volume policy chosen for the app (by the
// app, its class or its stack, not the platform's defaults), or a data
// class. Such an app gets a claim bound to a volume the environment
// makes, so teardown's volume policies have something to act on.
func holdsData(a *ir.App) bool {
	switch a.From.Volumes {
	case ir.FromApp, ir.FromClass, ir.FromStack:
		return true
	}
	return slices.Contains([]string{"storage-cluster", "database-cluster", "vault"}, a.Class)
}

func claimName(a *ir.App) string  { return "data-" + a.Name }
func volumeName(a *ir.App) string { return "e2e-" + a.Namespace + "-" + a.Name }

// crd is a permissive CustomResourceDefinition for a simulated kind:
// any spec, any status (with the status subresource, as operators'
// CRDs have), v1. Kinds named Cluster* are cluster-scoped, as they are
// in the operators platforms use.
func crd(cr ir.CustomResource) map[string]any {
	plural := strings.ToLower(cr.Kind) + "s"
	scope := "Namespaced"
	if strings.HasPrefix(cr.Kind, "Cluster") {
		scope = "Cluster"
	}
	open := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	meta := map[string]any{"name": plural + "." + cr.Group, "labels": map[string]any{"platc.io/e2e": "simulated-operator"}}
	if strings.HasSuffix(cr.Group, ".k8s.io") || strings.HasSuffix(cr.Group, ".kubernetes.io") {
		// Kubernetes' own groups need an API review; this one is a
		// stand-in (for the snapshot controller's CRDs).
		meta["annotations"] = map[string]any{"api-approved.kubernetes.io": "unapproved, simulated by platc's e2e environment"}
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": meta,
		"spec": map[string]any{
			"group": cr.Group, "scope": scope,
			"names": map[string]any{"plural": plural, "singular": strings.ToLower(cr.Kind), "kind": cr.Kind, "listKind": cr.Kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": open, "status": open,
					},
				}},
			}},
		},
	}
}
