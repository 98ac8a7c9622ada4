package testenv

import (
	"context"
	"os"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// TestServer proves the harness itself: the API server answers, RBAC
// separates the admin from a user with no role, and the Argo CRDs serve.
func TestServer(t *testing.T) {
	s := Require(t)
	kc, dc := s.Clients(t)
	ctx := context.Background()
	if _, err := kc.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("admin cannot list namespaces: %v", err)
	}
	for _, gvr := range []string{"workflows", "workflowtemplates", "clusterworkflowtemplates", "applications", "appprojects"} {
		if _, err := dc.Resource(schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: gvr}).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil && gvr != "clusterworkflowtemplates" {
			t.Errorf("listing %s: %v", gvr, err)
		}
	}
	nobody, err := kubernetes.NewForConfig(s.Rest(NobodyToken))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nobody.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("a user with no role listed namespaces: %v", err)
	}
}
