package executor_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/events"
	"github.com/platc/platc/executor"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
)

// grantTeardowner gives user teardowner exactly the permissions Phase 0
// asks for a teardown of f's platform with events: to write, only the
// Workflow, its own two Applications and the Sensor, and the namespaces
// Argo CD created for the apps, each by name; to read, the list of every
// kind the scan for leftovers needs. A role per fixture, as the
// namespaces' names are the fixture's.
func grantTeardowner(t *testing.T, f *fixture) {
	f.s.Grant(t, "teardowner", "platc-test-teardowner-"+f.name, teardownerRules(f))
}

// teardownerRules are grantTeardowner's.
func teardownerRules(f *fixture) []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		{Verbs: []string{"list"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
		{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"nodes", "pods", "persistentvolumeclaims", "persistentvolumes", "namespaces"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"namespaces"}},
		{Verbs: []string{"delete"}, APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: []string{"api-" + f.name, "data-" + f.name}},
		{Verbs: []string{"get", "list"}, APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}},
		{Verbs: []string{"create", "get", "list"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows"}},
		{Verbs: []string{"get"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflowtemplates", "clusterworkflowtemplates"}},
		{Verbs: []string{"list"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}},
		{Verbs: []string{"get", "patch"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, ResourceNames: []string{argocd.RootApp, argocd.EventsApp}},
		{Verbs: []string{"get", "delete"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"sensors"}, ResourceNames: []string{events.Sensor}},
		{Verbs: []string{"get", "patch"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"cronworkflows"}, ResourceNames: []string{"deploy" + argo.ScheduleSuffix}},
	}
}

// Teardown stops what would redeploy before its workflow exists: the
// root and the events Application lose their automated sync (recorded on
// each), the Sensor is gone, the scheduled deploy's CronWorkflow is
// suspended (recorded on it); the next deploy puts the automated sync
// back and resumes the schedule. Argo CD is not running here, so the Sensor's return (self-heal of
// the events Application) is shown only as the restored policy.
func TestTeardownStopsRedeployFirst(t *testing.T) {
	f := newFixture(t, "stop")
	hcl := filepath.Join(f.dir, "platform.hcl")
	src, err := os.ReadFile(hcl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hcl, append(src, "\nevents {}\n\nschedule \"deploy\" {\n  cron = \"0 3 * * *\"\n}\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)
	prog := f.program(t, "")
	// The CronWorkflow, as Argo CD applies it from schedules.yaml.
	wfFiles, err := argo.Emitter{}.Emit(prog)
	if err != nil {
		t.Fatal(err)
	}
	applied := false
	for _, file := range wfFiles {
		if file.Path == "workflows/schedules.yaml" {
			f.s.Apply(t, string(file.Data), "argocd-controller")
			applied = true
		}
	}
	if !applied {
		t.Fatal("no schedules.yaml emitted: nothing to test")
	}
	// The events Application and the Sensor, as the bootstrap and Argo CD
	// leave them.
	files, err := argocd.Apps{}.Emit(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if strings.Contains(string(file.Data), "name: "+argocd.EventsApp+"\n") {
			f.s.Apply(t, string(file.Data), "platc-bootstrap")
		}
	}
	evFiles, err := events.Emitter{}.Emit(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range evFiles {
		for _, doc := range strings.Split(string(file.Data), "\n---\n") {
			if strings.Contains(doc, "kind: Sensor\n") {
				f.s.Apply(t, doc, "argocd-application-controller")
			}
		}
	}
	f.healthy(t)
	_, dc := f.s.Clients(t)
	ctx := context.Background()
	app := func(name string) *unstructured.Unstructured {
		t.Helper()
		u, err := dc.Resource(cluster.Applications).Namespace(f.argocd).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	automated := func(name string) (any, bool) {
		v, ok, _ := unstructured.NestedFieldCopy(app(name).Object, "spec", "syncPolicy", "automated")
		return v, ok
	}
	rootBefore, ok := automated(argocd.RootApp)
	if !ok {
		t.Fatal("the root Application emitted by emit/argocd has no automated sync: nothing to test")
	}
	if _, ok := automated(argocd.EventsApp); !ok {
		t.Fatal("the events Application has no automated sync: nothing to test")
	}

	grantTeardowner(t, f)
	ch := f.async(t, config.Teardown, testenv.TeardownerToken, nil)
	wf := f.s.WaitWorkflow(t, f.wf, f.selector("teardown"), 30*time.Second)
	// The workflow exists only once nothing can redeploy.
	for _, name := range []string{argocd.RootApp, argocd.EventsApp} {
		if v, ok := automated(name); ok {
			t.Errorf("Application %s still syncs automatically (%v) when the teardown workflow starts", name, v)
		}
		if app(name).GetAnnotations()[executor.AnnotationAutomated] == "" {
			t.Errorf("Application %s: the automated sync it had is not recorded", name)
		}
	}
	if _, err := dc.Resource(cluster.Sensors).Namespace(f.wf).Get(ctx, events.Sensor, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Sensor %s still there when the teardown workflow starts (err %v)", events.Sensor, err)
	}
	schedule := func() (suspended bool, recorded string) {
		t.Helper()
		u, err := dc.Resource(cluster.CronWorkflows).Namespace(f.wf).Get(ctx, "deploy"+argo.ScheduleSuffix, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		suspended, _, _ = unstructured.NestedBool(u.Object, "spec", "suspend")
		return suspended, u.GetAnnotations()[executor.AnnotationSuspended]
	}
	if suspended, recorded := schedule(); !suspended || recorded != "true" {
		t.Errorf("the scheduled deploy when the teardown workflow starts: suspended %v, recorded %q; want suspended by the teardown", suspended, recorded)
	}
	for _, a := range f.apps {
		f.s.DeleteApplication(t, f.argocd, a)
	}
	f.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "api", Phase: "Succeeded"}, testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"})
	r := wait(t, ch)
	expect(t, r, exitcode.OK, "clean")
	contains(t, "report", r.out, `"stopped":["Application `+f.argocd+`/platc-root: automated sync off until the next deploy"`,
		`"CronWorkflow `+f.wf+`/deploy-schedule: suspended until the next deploy"`,
		`"Sensor `+f.wf+`/platc-deploy: deleted until the next deploy"]`)

	// A second teardown finds the platform removed, keeps the first one's
	// record, and changes nothing.
	r = f.run(t, config.Teardown, testenv.TeardownerToken, nil)
	expect(t, r, exitcode.OK, "clean")
	contains(t, "logs", r.logs, "syncs manually already", "no push can trigger a deploy", "deploy-schedule is suspended already")

	// A dry-run deploy plans the restore and changes nothing; the deploy
	// restores the automated sync each had.
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	contains(t, "report", r.out, "restore what a teardown switched off on Application "+f.argocd+"/platc-root",
		"resume CronWorkflow "+f.wf+"/deploy-schedule, which a teardown suspended")
	if suspended, _ := schedule(); !suspended {
		t.Error("a dry run resumed the scheduled deploy")
	}
	if _, ok := automated(argocd.RootApp); ok {
		t.Error("a dry run restored the root's automated sync")
	}
	// The deploy waits for the root, its automated sync back, to
	// re-create the Applications the teardown deleted before it submits
	// its workflow (the steps fail on a missing Application). Automated
	// sync alone would not: without self-heal Argo CD syncs a revision
	// automatically only once (e2e TestWorkflowOfWorkflows showed it on
	// the real Argo CD), so the deploy writes a sync operation on the
	// root, as argocd app sync does. No Argo CD runs here: the test
	// re-creates the Applications, as the root's sync would, once the root
	// syncs automatically again and carries that operation.
	ch = f.async(t, config.Deploy, testenv.AdminToken, nil)
	deadline := time.Now().Add(30 * time.Second)
	for {
		root := app(argocd.RootApp)
		rev, _, _ := unstructured.NestedString(root.Object, "operation", "sync", "revision")
		opts, _, _ := unstructured.NestedStringSlice(root.Object, "operation", "sync", "syncOptions")
		want, _, _ := unstructured.NestedString(root.Object, "spec", "source", "targetRevision")
		if v, ok := automated(argocd.RootApp); ok && equalJSON(v, rootBefore) && rev != "" {
			if rev != want || !slices.Contains(opts, "RespectIgnoreDifferences=true") {
				t.Fatalf("the root's sync operation asks for revision %q with options %v; want %q with the root's own options", rev, opts, want)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deploy did not restore the root's automated sync")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	wfs, err := dc.Resource(cluster.Workflows).Namespace(f.wf).List(ctx, metav1.ListOptions{LabelSelector: f.selector("deploy")})
	if err != nil {
		t.Fatal(err)
	}
	if len(wfs.Items) > 0 {
		t.Errorf("the deploy submitted its workflow before the root re-created the Applications")
	}
	for _, a := range f.apps {
		f.s.Application(t, f.argocd, a, "Missing", "OutOfSync")
	}
	wf = f.s.WaitWorkflow(t, f.wf, f.selector("deploy"), 30*time.Second)
	f.healthy(t)
	if v, _ := automated(argocd.EventsApp); v == nil || v.(map[string]any)["selfHeal"] != true {
		t.Errorf("events Application automated sync after deploy = %v, want self-heal back", v)
	}
	for _, name := range []string{argocd.RootApp, argocd.EventsApp} {
		anns := app(name).GetAnnotations()
		if _, ok := anns[executor.AnnotationAutomated]; ok {
			t.Errorf("Application %s keeps the teardown's record after the deploy restored it", name)
		}
		if _, ok := anns[executor.AnnotationSensorDeleted]; ok {
			t.Errorf("Application %s keeps the deleted-Sensor record after the deploy", name)
		}
	}
	f.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"}, testenv.Node{Task: "api", Phase: "Succeeded"})
	r = wait(t, ch)
	expect(t, r, exitcode.OK, "succeeded")
	contains(t, "logs", r.logs, "the root re-created the 3 Applications a teardown deleted")
	contains(t, "report", r.out, `"restored":["Application `+f.argocd+`/platc-events: automated sync restored"`, `"Application `+f.argocd+`/platc-root: automated sync restored"`,
		"Sensor platc-deploy: Argo CD re-creates it (Application "+f.argocd+"/platc-events heals itself)",
		"CronWorkflow "+f.wf+"/deploy-schedule: resumed")
	if suspended, recorded := schedule(); suspended || recorded != "" {
		t.Errorf("the scheduled deploy after the deploy: suspended %v, recorded %q; want resumed, no record", suspended, recorded)
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Teardown deletes the namespaces Argo CD created for the apps once they
// are gone, except one that holds a claim the volume policy keeps. This
// API server runs no namespace controller, so the deleted namespace stays
// terminating, as behind a stuck finalizer on a cluster: the run reports
// it and exits 2. Once it is gone, a second teardown is clean.
func TestTeardownDeletesNamespaces(t *testing.T) {
	f := newFixture(t, "ns")
	// api runs the controller of a kind (its CRD is on the server).
	hcl := filepath.Join(f.dir, "platform.hcl")
	src, err := os.ReadFile(hcl)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hcl, []byte(strings.Replace(string(src), "  depends_on = [stack.data]\n", "  depends_on = [stack.data]\n  custom_resources = [\"metallb.io/IPAddressPool\"]\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	f.s.Apply(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ipaddresspools.metallb.io}
spec:
  group: metallb.io
  scope: Namespaced
  names: {kind: IPAddressPool, plural: ipaddresspools, singular: ipaddresspool, listKind: IPAddressPoolList}
  versions:
  - name: v1beta1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`, "platc-test")
	f.primitives(t)
	f.healthy(t)
	kc, _ := f.s.Clients(t)
	ctx := context.Background()
	data, api := "data-"+f.name, "api-"+f.name
	f.s.Namespace(t, data)
	f.s.Namespace(t, api)
	// db's claim, kept by the default volume policy (retain).
	if _, err := kc.CoreV1().PersistentVolumeClaims(data).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data-db"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Two volumes whose claims in api's namespace were deleted: one
	// kept by its reclaim policy, one that should have gone with its
	// claim (no provisioner runs here to delete it).
	for name, policy := range map[string]corev1.PersistentVolumeReclaimPolicy{"kept": corev1.PersistentVolumeReclaimRetain, "left": corev1.PersistentVolumeReclaimDelete} {
		if _, err := kc.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name + "-" + f.name},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: policy,
				ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: api, Name: name},
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + name}},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Objects Argo CD no longer tracks that carry an app's instance
	// label: a ConfigMap applied by hand in a namespace teardown does not
	// delete, and a cluster-scoped ClusterRole. Not reported: one with an
	// owner (it goes with it), one in the namespace being deleted, one
	// labelled for something else.
	leftover := func(ns, name, instance string, owned bool) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{executor.InstanceLabel: instance}}}
		if owned {
			cm.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "0e6a2f6c-0000-4000-8000-000000000001"}}
		}
		if _, err := kc.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = kc.CoreV1().ConfigMaps(ns).Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	leftover("default", "left-api-"+f.name, "api", false)
	leftover("default", "owned-api-"+f.name, "api", true)
	leftover("default", "other-"+f.name, "not-an-app-of-"+f.name, false)
	leftover(api, "in-deleted-namespace", "api", false)
	role := "left-db-" + f.name
	if _, err := kc.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role, Labels: map[string]string{executor.InstanceLabel: "db"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.RbacV1().ClusterRoles().Delete(context.Background(), role, metav1.DeleteOptions{}) })

	// Without the list of every kind, Phase 0 stops the teardown before
	// anything is stopped or deleted, and names the permission. (As the
	// deployer, whom no test grants it; the teardowner may hold it from
	// an earlier test's grant on this shared API server.)
	r := f.run(t, config.Teardown, testenv.DeployerToken, nil)
	if r.code != exitcode.Failure || !strings.Contains(r.out, "list every resource of every API group (cluster-wide) (to report objects left with an app's app.kubernetes.io/instance label") {
		t.Errorf("teardown without the wide list: exit %d, want Phase 0 to name the permission:\n%s", r.code, r.out)
	}

	grantTeardowner(t, f)
	ch := f.async(t, config.Teardown, testenv.TeardownerToken, nil)
	wf := f.s.WaitWorkflow(t, f.wf, f.selector("teardown"), 30*time.Second)
	for _, a := range f.apps {
		f.s.DeleteApplication(t, f.argocd, a)
	}
	f.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "api", Phase: "Succeeded"}, testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"})
	r = wait(t, ch)
	expect(t, r, exitcode.Partial, "orphans")
	contains(t, "report", r.out,
		`{"kind":"ConfigMap","namespace":"default","name":"left-api-`+f.name+`","app":"api","reason":"carries app api's label app.kubernetes.io/instance, but its Application is gone and Argo CD no longer tracks it"}`,
		`{"kind":"ClusterRole.rbac.authorization.k8s.io","name":"`+role+`","app":"db","reason":"carries app db's label`)
	for _, not := range []string{"owned-api-", "other-" + f.name, "in-deleted-namespace"} {
		if strings.Contains(r.out, not) {
			t.Errorf("report lists %s, which is not left behind:\n%s", not, r.out)
		}
	}
	contains(t, "report", r.out, `{"kind":"Namespace","name":"`+api+`","reason":"stuck terminating`,
		`"Namespace `+data+` (kept: it holds 1 claim data-db)"`, `"PersistentVolumeClaim `+data+`/data-db (policy retain)"`,
		`"PersistentVolume pv-kept-ns (its claim `+api+`/kept was deleted; kept by its reclaim policy Retain)"`,
		`{"kind":"PersistentVolume","name":"pv-left-ns","reason":"its claim `+api+`/left was deleted and its reclaim policy is Delete, but it remains (phase `,
		`"CustomResourceDefinition ipaddresspools.metallb.io (kind metallb.io/IPAddressPool of app api, whose controller is gone; Helm leaves CRDs, delete it once no instance is left)"`)
	ns, err := kc.CoreV1().Namespaces().Get(ctx, api, metav1.GetOptions{})
	if err != nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace %s not being deleted: %v", api, err)
	}
	if ns, err := kc.CoreV1().Namespaces().Get(ctx, data, metav1.GetOptions{}); err != nil || ns.DeletionTimestamp != nil {
		t.Errorf("namespace %s, which holds a retained claim, was deleted (%v)", data, err)
	}

	// The namespace controller's part, by hand: the finalizer goes, and
	// with it the namespace; and the provisioner's, deleting the volume.
	// The second teardown finds nothing left.
	// (pv-protection's finalizer first: its controller does not run here)
	if _, err := kc.CoreV1().PersistentVolumes().Patch(ctx, "pv-left-"+f.name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.CoreV1().PersistentVolumes().Delete(ctx, "pv-left-"+f.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// (what the namespace held first: without its controller, the
	// ConfigMap would outlive the namespace in storage)
	if err := kc.CoreV1().ConfigMaps(api).Delete(ctx, "in-deleted-namespace", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns.Spec.Finalizers = nil
	if _, err := kc.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.CoreV1().ConfigMaps("default").Delete(ctx, "left-api-"+f.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.RbacV1().ClusterRoles().Delete(ctx, role, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r = f.run(t, config.Teardown, testenv.TeardownerToken, nil)
	expect(t, r, exitcode.OK, "clean")
	contains(t, "report", r.out, "already removed", `"Namespace `+data+` (kept: it holds 1 claim data-db)"`)
	if strings.Contains(r.out, `"orphans":[`) {
		t.Errorf("orphans after the namespace went:\n%s", r.out)
	}
}
