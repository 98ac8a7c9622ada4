package snapshot

import (
	"context"
	"os"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Stop()
	os.Exit(code)
}

// TestComponentsChoice: against a real API server, a component matched
// by a Deployment and a StatefulSet is the Deployment, one matched by two
// of a kind is the first by name, one matched by a StatefulSet only is
// it, and one matched by none is missing.
func TestComponentsChoice(t *testing.T) {
	srv := testenv.Require(t)
	kc, _ := srv.Clients(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const ns, rel = "components-choice", "rel"
	srv.Namespace(t, ns)
	tmpl := func(app, image string) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}}
	}
	meta := func(name, component string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Labels: map[string]string{instanceLabel: rel, componentLabel: component}}
	}
	two := int32(2)
	for _, d := range []appsv1.Deployment{
		{ObjectMeta: meta("b-repo", "repo-server"), Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "b"}}, Template: tmpl("b", "repo:v2")}},
		{ObjectMeta: meta("a-repo", "repo-server"), Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}, Template: tmpl("a", "repo:v1")}},
		{ObjectMeta: meta("z-both", "both"), Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "z"}}, Template: tmpl("z", "both:v3")}},
	} {
		if _, err := kc.AppsV1().Deployments(ns).Create(ctx, &d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []appsv1.StatefulSet{
		{ObjectMeta: meta("a-both", "both"), Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "s"}}, Template: tmpl("s", "both:v4")}},
		{ObjectMeta: meta("ctl", "controller"), Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "c"}}, Template: tmpl("c", "ctl@sha256:0000")}},
	} {
		if _, err := kc.AppsV1().StatefulSets(ns).Create(ctx, &s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := cluster.New(srv.Rest(testenv.AdminToken), "platc-test", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	got := Components(ctx, c, []Expect{
		{Component: "repo-server", Namespace: ns, Release: rel, Title: "repo"},
		{Component: "both", Namespace: ns, Release: rel, Title: "both"},
		{Component: "controller", Namespace: ns, Release: rel, Title: "ctl"},
		{Component: "server", Namespace: ns, Release: rel, Title: "server"},
	})
	want := []Workload{
		{Component: "repo", Namespace: ns, Kind: "Deployment", Name: "a-repo", Version: "v1", Replicas: 2, Status: NotReady, Message: "0 of 2 replicas Ready"},
		{Component: "both", Namespace: ns, Kind: "Deployment", Name: "z-both", Version: "v3", Replicas: 1, Status: NotReady, Message: "0 of 1 replicas Ready"},
		{Component: "ctl", Namespace: ns, Kind: "StatefulSet", Name: "ctl", Replicas: 1, Status: NotReady, Message: "0 of 1 replicas Ready"},
		{Component: "server", Namespace: ns, Status: Missing, Message: "no Deployment or StatefulSet of release rel with app.kubernetes.io/component=server or named rel-server"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("component %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
