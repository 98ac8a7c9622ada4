package all_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Stop()
	os.Exit(code)
}

// TestSyntheticOnAPIServer creates every Kubernetes object platc build
// writes for a synthetic platform (Applications, AppProjects,
// WorkflowTemplates and their ClusterWorkflowTemplate, RBAC, ConfigMaps)
// on a real kube-apiserver and etcd, both with their default request
// limits (etcd's --max-request-bytes of 1.5 MiB, the API server's 3 MiB
// body): not a dry run, the objects are stored. The Argo CRDs carry
// their full schemas, so the API server also validates and prunes each
// object as a cluster would; the test compares what it stored with what
// was sent, so a dropped field fails it too. No controller runs: this
// proves the objects are accepted, not what Argo does with them.
//
// 1,000 apps always run; 10,000 (about a minute on an idle 2-core
// machine, several when it is busy) only with PLATC_APISERVER_10K=1,
// which make e2e and make bench set.
func TestSyntheticOnAPIServer(t *testing.T) {
	sizes := []int{1000}
	if os.Getenv("PLATC_APISERVER_10K") == "1" {
		sizes = append(sizes, 10_000)
	}
	s := testenv.Require(t)
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			name := fmt.Sprintf("synth%d", n)
			p := compileSrc(t, synth.Generate(synth.Options{Apps: n, CrossStack: true, Name: name}))
			files, err := all.Emit(p)
			if err != nil {
				t.Fatal(err)
			}
			var objs []*unstructured.Unstructured
			for _, f := range files {
				if !strings.HasSuffix(f.Path, ".yaml") && !strings.HasSuffix(f.Path, ".yml") {
					continue
				}
				dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(f.Data), 4096)
				for {
					var doc any
					if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						t.Fatalf("%s: %v", f.Path, err)
					}
					// Helm values and Ansible playbooks are YAML but no
					// objects: an object has both.
					obj, _ := doc.(map[string]any)
					if obj["apiVersion"] == nil || obj["kind"] == nil {
						continue
					}
					objs = append(objs, &unstructured.Unstructured{Object: obj})
				}
			}
			start := time.Now()
			created, largest, largestName := createAll(t, s, objs)
			elapsed := time.Since(start)
			apps := created["Application"]
			if apps < n {
				t.Errorf("%d Applications created, want at least %d (one per app)", apps, n)
			}
			if created["WorkflowTemplate"] < 3 || created["ClusterWorkflowTemplate"] != 1 {
				t.Errorf("created %v: want deploy, teardown, validate and the ClusterWorkflowTemplate", created)
			}
			var kinds []string
			for k, c := range created {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
			}
			sort.Strings(kinds)
			t.Logf("%d apps: created %d objects in %s (%s); largest %s, %d bytes as JSON", n, len(objs), elapsed.Round(time.Millisecond), strings.Join(kinds, ", "), largestName, largest)
		})
	}
}

// createAll creates objs on s, namespaces first, four at a time, and
// returns how many of each kind it created and the largest object.
func createAll(t *testing.T, s *testenv.Server, objs []*unstructured.Unstructured) (map[string]int, int, string) {
	t.Helper()
	cfg := s.Rest(testenv.AdminToken)
	cfg.QPS, cfg.Burst = 1000, 1000
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	ctx := context.Background()
	// Every namespace an object names, as a cluster would have it.
	nss := map[string]bool{}
	for _, o := range objs {
		if ns := o.GetNamespace(); ns != "" {
			nss[ns] = true
		}
	}
	kc, _ := s.Clients(t)
	for ns := range nss {
		if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	created := map[string]int{}
	largest, largestName := 0, ""
	work := make(chan *unstructured.Unstructured)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range work {
				gvk := o.GroupVersionKind()
				m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
				if err != nil {
					t.Errorf("%s %s: %v", gvk.Kind, o.GetName(), err)
					continue
				}
				sent, _ := o.MarshalJSON()
				var ri dynamic.ResourceInterface = dc.Resource(m.Resource)
				if m.Scope.Name() == meta.RESTScopeNameNamespace {
					ns := o.GetNamespace()
					if ns == "" {
						ns = "default"
					}
					ri = dc.Resource(m.Resource).Namespace(ns)
				}
				got, err := ri.Create(ctx, o, metav1.CreateOptions{FieldValidation: "Strict"})
				if apierrors.IsAlreadyExists(err) {
					// The shared server may already hold it from another size.
					err = nil
					got = nil
				}
				if err != nil {
					t.Errorf("create %s %s/%s (%d bytes): %v", gvk.Kind, o.GetNamespace(), o.GetName(), len(sent), err)
					continue
				}
				if got != nil {
					if diff := specDiff(o, got); diff != "" {
						t.Errorf("%s %s: the API server did not store what was sent: %s", gvk.Kind, o.GetName(), diff)
					}
				}
				mu.Lock()
				created[gvk.Kind]++
				if len(sent) > largest {
					largest, largestName = len(sent), gvk.Kind+" "+o.GetName()
				}
				mu.Unlock()
			}
		}()
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	return created, largest, largestName
}

// specDiff names the first field of sent, metadata and status aside,
// that stored does not hold as sent: a field the CRD's schema pruned, or
// a value it changed. Defaults the schema adds are no difference.
func specDiff(sent, stored *unstructured.Unstructured) string {
	for k, v := range sent.Object {
		if k == "metadata" || k == "status" {
			continue
		}
		if d := subset(k, v, stored.Object[k]); d != "" {
			return d
		}
	}
	return ""
}

func subset(path string, sent, stored any) string {
	switch a := sent.(type) {
	case map[string]any:
		b, ok := stored.(map[string]any)
		if !ok {
			return path + " is missing"
		}
		for k, v := range a {
			if d := subset(path+"."+k, v, b[k]); d != "" {
				return d
			}
		}
	case []any:
		b, ok := stored.([]any)
		if !ok || len(a) != len(b) {
			return path + " lost items"
		}
		for i := range a {
			if d := subset(fmt.Sprintf("%s[%d]", path, i), a[i], b[i]); d != "" {
				return d
			}
		}
	default:
		if fmt.Sprint(sent) != fmt.Sprint(stored) {
			return fmt.Sprintf("%s is %v, not %v", path, stored, sent)
		}
	}
	return ""
}
