package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// FixtureLabel marks every object a test writes in place of a controller
// or of an earlier install, so nobody mistakes it for platc's own work.
const FixtureLabel = "platc.io/test-fixture"

// GVRs the fixtures write.
var (
	WorkflowGVR         = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflows"}
	WorkflowTemplateGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflowtemplates"}
	ClusterTemplateGVR  = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "clusterworkflowtemplates"}
	ApplicationGVR      = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
)

func ignoreExists(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("fixture %s: %v", what, err)
	}
}

// ClusterNodes writes what kubelets and the scheduler would: Ready nodes
// (workers plus one control-plane node) and a Running, Ready CoreDNS pod.
func (s *Server) ClusterNodes(t testing.TB, workers int) {
	t.Helper()
	kc, _ := s.Clients(t)
	ctx := context.Background()
	for i := 0; i <= workers; i++ {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%d", i), Labels: map[string]string{FixtureLabel: "kubelet"}}}
		if i == 0 {
			n.Labels["node-role.kubernetes.io/control-plane"] = ""
		}
		n.Status = corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
			Capacity:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi")},
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.34.1"},
		}
		_, err := kc.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		ignoreExists(t, "node", err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "coredns-0", Namespace: "kube-system", Labels: map[string]string{"k8s-app": "kube-dns", FixtureLabel: "scheduler"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "coredns", Image: "registry.k8s.io/coredns/coredns:v1.12.0"}}},
	}
	created, err := kc.CoreV1().Pods("kube-system").Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return
	}
	ignoreExists(t, "coredns pod", err)
	created.Status.Phase = corev1.PodRunning
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := kc.CoreV1().Pods("kube-system").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("fixture coredns status: %v", err)
	}
}

// Namespace creates a namespace.
func (s *Server) Namespace(t testing.TB, name string) {
	t.Helper()
	kc, _ := s.Clients(t)
	_, err := kc.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	ignoreExists(t, "namespace", err)
}

// fixture wraps obj, labelled with its role so that cleanups find it.
func fixture(obj map[string]any, role string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: obj}
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[FixtureLabel] = role
	u.SetLabels(labels)
	return u
}

// Create creates an object from YAML, labelled as a fixture.
func (s *Server) Create(t testing.TB, gvr schema.GroupVersionResource, ns, manifest, role string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatalf("fixture yaml: %v", err)
	}
	u := fixture(obj, role)
	_, dc := s.Clients(t)
	var out *unstructured.Unstructured
	var err error
	if ns == "" {
		out, err = dc.Resource(gvr).Create(context.Background(), u, metav1.CreateOptions{})
	} else {
		out, err = dc.Resource(gvr).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatalf("fixture %s %s: %v", gvr.Resource, u.GetName(), err)
	}
	return out
}

// Application writes an Argo CD Application with the status Argo CD's
// application controller would report.
func (s *Server) Application(t testing.TB, ns, name, health, sync string) {
	t.Helper()
	_, dc := s.Clients(t)
	ctx := context.Background()
	u, err := dc.Resource(ApplicationGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		u = s.Create(t, ApplicationGVR, ns, fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: %s}
spec:
  project: default
  destination: {server: "https://kubernetes.default.svc", namespace: %s}
  source: {repoURL: "https://git.example.com/platform.git", path: apps/%s, targetRevision: v1}
`, name, ns, name, name), "argocd-application-controller")
	} else if err != nil {
		t.Fatal(err)
	}
	status := map[string]any{}
	if health != "" {
		msg := ""
		if health != "Healthy" {
			msg = name + " is " + health
		}
		status["health"] = map[string]any{"status": health, "message": msg}
	}
	if sync != "" {
		src, _, _ := unstructured.NestedMap(u.Object, "spec", "source")
		status["sync"] = map[string]any{"status": sync, "revision": "0123456789abcdef0123456789abcdef01234567",
			"comparedTo": map[string]any{"source": src, "destination": u.Object["spec"].(map[string]any)["destination"]}}
	}
	u.Object["status"] = status
	if _, err := dc.Resource(ApplicationGVR).Namespace(ns).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("fixture application %s status: %v", name, err)
	}
}

// DeleteApplication removes an Application, as Argo CD does once its
// resources are gone.
func (s *Server) DeleteApplication(t testing.TB, ns, name string) {
	t.Helper()
	_, dc := s.Clients(t)
	err := dc.Resource(ApplicationGVR).Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// WaitWorkflow waits for a Workflow matching selector to appear in ns.
func (s *Server) WaitWorkflow(t testing.TB, ns, selector string, limit time.Duration) *unstructured.Unstructured {
	t.Helper()
	_, dc := s.Clients(t)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		list, err := dc.Resource(WorkflowGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) > 0 {
			return &list.Items[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no workflow %q appeared in namespace %s within %s", selector, ns, limit)
	return nil
}

// Node is one node of a fixture Workflow status.
type Node struct {
	Task, Phase, Message string
	// Attempts > 0 makes the task a Retry node with that many Pod
	// children, the last carrying Message.
	Attempts int
	// Outputs are the node's output parameters.
	Outputs map[string]string
}

// WorkflowStatus writes the status the Argo Workflows controller would:
// the workflow phase and one node per DAG task under the entry DAG node.
func (s *Server) WorkflowStatus(t testing.TB, wf *unstructured.Unstructured, phase, message string, nodes ...Node) {
	t.Helper()
	_, dc := s.Clients(t)
	ctx := context.Background()
	cur, err := dc.Resource(WorkflowGVR).Namespace(wf.GetNamespace()).Get(ctx, wf.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	ts := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339) }
	name := cur.GetName()
	st := map[string]any{"phase": phase, "startedAt": ts(-time.Minute)}
	if message != "" {
		st["message"] = message
	}
	if phase == "Succeeded" || phase == "Failed" || phase == "Error" {
		st["finishedAt"] = ts(0)
	}
	all := map[string]any{}
	var children []any
	for i, n := range nodes {
		id := fmt.Sprintf("%s-%d", name, 1000+i)
		children = append(children, id)
		node := map[string]any{"id": id, "name": name + "." + n.Task, "displayName": n.Task, "type": "Pod", "phase": n.Phase,
			"boundaryID": name, "templateName": "sync-and-wait", "startedAt": ts(-time.Minute)}
		if n.Phase == "Omitted" {
			node["type"] = "Skipped"
			node["message"] = "omitted: depends condition not met"
		}
		if n.Phase != "Running" && n.Phase != "Pending" {
			node["finishedAt"] = ts(0)
		}
		if n.Message != "" {
			node["message"] = n.Message
		}
		if len(n.Outputs) > 0 {
			var ps []any
			for k, v := range n.Outputs {
				ps = append(ps, map[string]any{"name": k, "value": v})
			}
			node["outputs"] = map[string]any{"parameters": ps}
		}
		if n.Attempts > 0 {
			node["type"] = "Retry"
			var kids []any
			for k := 0; k < n.Attempts; k++ {
				kid := fmt.Sprintf("%s-%d", id, k)
				kids = append(kids, kid)
				all[kid] = map[string]any{"id": kid, "name": fmt.Sprintf("%s.%s(%d)", name, n.Task, k), "displayName": fmt.Sprintf("%s(%d)", n.Task, k),
					"type": "Pod", "phase": n.Phase, "message": n.Message, "boundaryID": name, "startedAt": ts(-time.Minute), "finishedAt": ts(0)}
			}
			node["children"] = kids
			node["message"] = "No more retries left"
		}
		all[id] = node
	}
	all[name] = map[string]any{"id": name, "name": name, "displayName": name, "type": "DAG", "phase": phase, "children": children, "startedAt": ts(-time.Minute)}
	st["nodes"] = all
	cur.Object["status"] = st
	if _, err := dc.Resource(WorkflowGVR).Namespace(cur.GetNamespace()).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("fixture workflow status: %v", err)
	}
}

// Grant gives user a ClusterRole with rules, bound cluster-wide.
func (s *Server) Grant(t testing.TB, user, role string, rules []rbacv1.PolicyRule) {
	t.Helper()
	kc, _ := s.Clients(t)
	ctx := context.Background()
	_, err := kc.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: rules}, metav1.CreateOptions{})
	ignoreExists(t, "clusterrole", err)
	_, err = kc.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}},
	}, metav1.CreateOptions{})
	ignoreExists(t, "clusterrolebinding", err)
}

// Retarget changes an Application's spec.source.targetRevision, as the
// root app does when a new platform revision is synced, leaving the status
// (and its comparedTo) as Argo CD last wrote it.
func (s *Server) Retarget(t testing.TB, ns, name, revision string) {
	t.Helper()
	_, dc := s.Clients(t)
	ctx := context.Background()
	u, err := dc.Resource(ApplicationGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(u.Object, revision, "spec", "source", "targetRevision"); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(ApplicationGVR).Namespace(ns).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Apply creates or replaces the object of one YAML document (any kind the
// server knows), labelled as a fixture, the way Argo CD applies what it
// syncs. Empty documents are ignored.
func (s *Server) Apply(t testing.TB, manifest, role string) {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatalf("fixture yaml: %v", err)
	}
	if len(obj) == 0 {
		return
	}
	u := fixture(obj, role)
	kc, dc := s.Clients(t)
	gvk := u.GroupVersionKind()
	groups, err := restmapper.GetAPIGroupResources(kc.Discovery())
	if err != nil {
		t.Fatal(err)
	}
	m, err := restmapper.NewDiscoveryRESTMapper(groups).RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatalf("fixture %s: %v", gvk, err)
	}
	var ri dynamic.ResourceInterface = dc.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = dc.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	ctx := context.Background()
	if cur, err := ri.Get(ctx, u.GetName(), metav1.GetOptions{}); err == nil {
		u.SetResourceVersion(cur.GetResourceVersion())
		_, err = ri.Update(ctx, u, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("fixture update %s %s: %v", gvk.Kind, u.GetName(), err)
		}
		return
	}
	if _, err := ri.Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatalf("fixture create %s %s: %v", gvk.Kind, u.GetName(), err)
	}
}

// Workload writes a Deployment or StatefulSet (kind) with one container
// of image, labelled with labels, and the status the controller-manager
// would write once ready of its replicas are Ready (no controller-manager
// runs here: the test plays it). It replaces one of the same name.
func (s *Server) Workload(t testing.TB, kind, ns, name, image string, labels map[string]string, replicas, ready int32) {
	t.Helper()
	kc, _ := s.Clients(t)
	ctx := context.Background()
	l := map[string]string{FixtureLabel: "controller-manager"}
	for k, v := range labels {
		l[k] = v
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"platc.io/workload": name}}
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"platc.io/workload": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
	}
	meta := metav1.ObjectMeta{Name: name, Namespace: ns, Labels: l}
	switch kind {
	case "Deployment":
		c := kc.AppsV1().Deployments(ns)
		_ = c.Delete(ctx, name, metav1.DeleteOptions{})
		d, err := c.Create(ctx, &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: sel, Template: tmpl}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("fixture deployment %s/%s: %v", ns, name, err)
		}
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}
		if _, err := c.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("fixture deployment status %s/%s: %v", ns, name, err)
		}
	case "StatefulSet":
		c := kc.AppsV1().StatefulSets(ns)
		_ = c.Delete(ctx, name, metav1.DeleteOptions{})
		st, err := c.Create(ctx, &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Replicas: &replicas, Selector: sel, Template: tmpl, ServiceName: name}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("fixture statefulset %s/%s: %v", ns, name, err)
		}
		st.Status = appsv1.StatefulSetStatus{ObservedGeneration: st.Generation, Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready}
		if _, err := c.UpdateStatus(ctx, st, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("fixture statefulset status %s/%s: %v", ns, name, err)
		}
	default:
		t.Fatalf("fixture workload: kind %s", kind)
	}
}
