package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
)

const shop = "testdata/shop"

// RFC 2.5 #3: with database failing (its operator reports a Degraded
// Database), deploy stops its transitive dependents before they sync,
// converges everything independent of it, and exits 2; validate reports
// the failure; once the operator recovers, a second deploy syncs only
// what is not yet Healthy at the expected revision (database, Healthy
// again by itself, is left alone) and exits 0. Then a
// teardown with PV_POLICY=snapshot, which inspects apps with and without
// claims.
//
// RFC 2.2.1 and 5.3, in the same deploy: cache is slow (20 s), so its
// dependent metrics is still pending when database fails; metrics must
// still be scheduled and converge (Argo's default failFast would stop
// it), and database's Degraded fails its step at once, without a retry.
//
// Every action runs as a user with only the permissions Phase 0 lists,
// not as an admin.
func TestFailureThenResume(t *testing.T) {
	dir := shopWith(t, `namespace         = "cache"
  expected_duration = "30s"`, `namespace         = "cache"
  expected_duration = "20m"
  timeouts {
    health = "2m"
  }`)
	s := start(t, dir, "database")
	p := s.pl.Program
	deployer := s.asDeployer()

	r := s.run("deploy", ExitPartial, deployer)
	wantIn(t, "report", string(r.Report), `"app":"database"`, "exit code 10", "not run: database did not succeed")
	if strings.Contains(string(r.Report), "(after 2 attempts)") {
		t.Errorf("database's Degraded was retried:\n%s", r.Report)
	}
	s.settle()
	first := s.pl.Timeline.Events()
	wantNone(t, "INV-1: dependency order", CheckDeployOrder(s.pl.Declared, first))
	wantSame(t, "apps synced by the failed deploy", s.started(first), []string{"cache", "database", "metrics", "network"})
	s.wantConverged("network", "cache", "metrics")
	if _, h := status(s.apps()["database"]); h != "Degraded" {
		t.Errorf("database is %s, want Degraded", h)
	}
	s.wantStartedAfterFailure("metrics", "database")

	t.Run("validate reports the failure", func(t *testing.T) {
		r := s.run("validate", ExitPartial, deployer)
		wantIn(t, "report", string(r.Report), `"app":"database"`, "Degraded")
		// What the executor's bootstrap installed (argocd-cm as Helm
		// rendered it, the AppProjects, the root) is the compiled
		// platform: the comparison ran and found nothing.
		wantIn(t, "report", string(r.Report), `"bootstrap_drift":0`)
		if strings.Contains(string(r.Report), `"bootstrap_drift":[`) {
			t.Errorf("bootstrap drift right after the bootstrap:\n%s", r.Report)
		}
	})

	t.Run("resume", func(t *testing.T) {
		if err := s.pl.Fix(s.ctx, []string{"database"}); err != nil {
			t.Fatal(err)
		}
		// The resume judges database's Database as validate does, by
		// reading it, with the get Phase 0 asks for as an optional
		// permission and asDeployer grants by name. Without it the
		// Database is "not checked" and its wait runs a pod (3 pods).
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitOK, deployer)
		s.settle()
		// database turned Healthy when its operator recovered, at the
		// revision it was synced to: it needs no sync either.
		wantSame(t, "apps synced by the resumed deploy", s.started(s.pl.Timeline.Since(mark)), []string{"api", "web"})
		// The converged apps ran no pod: the real controller skipped
		// their tasks, and api's wait for database's Database, which
		// database converged with and which is Healthy by the wait's own
		// rule (issue 23: it ran a pod, 3 in all, before). Pods ran for
		// api and web only.
		wf, _ := s.workflowTree("deploy")
		phases, pods := workflowNodes(wf)
		for _, a := range []string{"network", "cache", "metrics", "database", "wait-database-primary"} {
			if phases[a] != "Skipped" {
				t.Errorf("converged task %s is %q, want Skipped", a, phases[a])
			}
		}
		if pods != 2 || phases["api"] != "Succeeded" || phases["web"] != "Succeeded" {
			t.Errorf("the resume ran %d pods, tasks %v; want 2: api and web", pods, phases)
		}
		wantIn(t, "logs", string(r.Logs), "1 resource wait skipped, without a pod: its resource is Healthy and its app has nothing to do: wait-database-primary")
		// The read asDeployer grants leaves Phase 0 nothing to warn about.
		if strings.Contains(string(r.Logs), "get databases.example.com database") {
			t.Errorf("Phase 0 warns about the read asDeployer grants:\n%s", r.Logs)
		}
		wantNone(t, "INV-1: dependency order", CheckDeployOrder(s.pl.Declared, s.pl.Timeline.Events()))
		s.wantConverged()
	})

	t.Run("teardown with every volume snapshotted", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("teardown", ExitOK, deployer, "TEARDOWN_CONFIRM="+p.Platform.Name, "PV_POLICY=snapshot")
		s.settle()
		evs := s.pl.Timeline.Since(mark)
		wantNone(t, "INV-5: reverse order", CheckTeardownOrder(s.pl.Declared, evs))
		snapshot := ir.VolumesSnapshot
		s.wantVolumes(&snapshot)
		// Every snapshot ready (the simulated controller takes
		// SnapshotDelay) before the first Application was deleted.
		ready := s.snapshotsReady()
		if len(ready) == 0 {
			t.Fatal("no VolumeSnapshot was made ready: nothing to compare")
		}
		wantNone(t, "snapshots before the first deletion", CheckSnapshotsFirst(ready, evs))
	})
}

// A teardown of a platform that never finished deploying: cache's pods
// never start, so metrics was never synced and its claim, which its
// retain policy would protect, does not exist. The teardown removes
// every platform app anyway; an Application the platform does not
// declare, left in its project, and a ConfigMap applied by hand with
// web's instance label make it exit 2 (orphans remain).
//
// A push during that teardown redeploys nothing (RFC 6.5, INV-5): once
// the executor has switched the root's automated sync off, the platform
// repository gets a new commit and Argo CD is told, as by a webhook; the
// root compares it, and no Application comes back and no deploy
// Workflow appears. The next deploy restores the root's automated sync.
// (The shop has no events block, so no Sensor: its deletion and return
// are TestTeardownStopsRedeployFirst's, on the real API server.)
func TestTeardownPartlyDeployed(t *testing.T) {
	s := start(t, shop, "cache")
	p := s.pl.Program
	s.run("deploy", ExitPartial)
	s.settle()
	wantSame(t, "apps synced", s.started(s.pl.Timeline.Events()), []string{"api", "cache", "database", "network", "web"})

	orphan := s.orphan("legacy-ui")
	leftover := s.labelledLeftover("web")
	deploys := len(s.workflowsOf("deploy"))
	pushed := s.pushOnceStopped()
	mark := s.pl.Timeline.Mark()
	r := s.run("teardown", ExitPartial, "TEARDOWN_CONFIRM="+p.Platform.Name)
	commit := pushed()
	wantIn(t, "report", string(r.Report), `"name":"legacy-ui","reason":"left in project shop; the platform does not declare it"`,
		`{"kind":"ConfigMap","namespace":"default","name":"left-by-hand","app":"web","reason":"carries app web's label app.kubernetes.io/instance`)
	s.settle()
	wantNone(t, "INV-5: reverse order", CheckTeardownOrder(s.pl.Declared, s.pl.Timeline.Since(mark)))
	// Argo CD saw the push, and a root still syncing automatically would
	// have re-created the Applications by then; the grace is for a sync
	// already started.
	if err := s.pl.RootCompared(s.ctx, commit); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Second)
	if left := s.apps(); len(left) > 0 {
		t.Errorf("%d Applications there after a teardown and a push: %v", len(left), slices.Sorted(maps.Keys(left)))
	}
	if n := len(s.workflowsOf("deploy")); n != deploys {
		t.Errorf("%d deploy Workflows after the teardown and the push, want %d", n, deploys)
	}
	if s.automated(argocd.RootApp) {
		t.Error("the root syncs automatically again after the teardown")
	}
	orphan()
	leftover()

	// The next deploy puts the root's automated sync back; the root then
	// re-creates the Applications, and cache fails again.
	r = s.run("deploy", ExitPartial)
	wantIn(t, "report", string(r.Report), `"restored":["Application `+p.Platform.ArgoCD.Namespace+`/platc-root: automated sync restored"]`)
	if !s.automated(argocd.RootApp) {
		t.Error("the deploy after the teardown did not restore the root's automated sync")
	}
	s.settle()

	// RFC 6.5 step 5, orchestration primitives last: with
	// TEARDOWN_PRIMITIVES=true the teardown goes on, once the apps are
	// removed, with the generated teardown playbook, which uninstalls
	// Argo Events, Argo Workflows, the root Application's release and
	// Argo CD with Helm. Read with the real helm list; Sealed Secrets
	// stays, and so do the CRDs (TEARDOWN_CRDS is unset).
	primitives := []string{"argo-events", "argo-workflows", "platc-root", "argocd"}
	wantSame(t, "the primitives' releases before", s.helmReleases(primitives...), primitives)
	r = s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name, "TEARDOWN_PRIMITIVES=true")
	wantIn(t, "report", string(r.Report), "Argo Events, Argo Workflows and Argo CD uninstalled", "TEARDOWN_CRDS=true")
	// Clean by the report's own definition, namespaces and labelled
	// leftovers included: the namespaces Argo CD created are gone, but
	// for those holding a claim the volume policy keeps.
	if strings.Contains(string(r.Report), `"orphans":[`) {
		t.Errorf("orphans after the second teardown:\n%s", r.Report)
	}
	s.wantNamespacesGone()
	wantNone(t, "the primitives' releases left by TEARDOWN_PRIMITIVES=true", s.helmReleases(primitives...))
	wantSame(t, "Sealed Secrets' release", s.helmReleases("sealed-secrets-controller"), []string{"sealed-secrets-controller"})
	crds := []string{"applications.argoproj.io", "workflows.argoproj.io", "eventbus.argoproj.io"}
	for _, crd := range crds {
		if _, err := s.env.Dynamic.Resource(crdGVR).Get(s.ctx, crd, metav1.GetOptions{}); err != nil {
			t.Errorf("CRD %s is gone without TEARDOWN_CRDS=true: %v", crd, err)
		}
	}
	// With TEARDOWN_CRDS=true a teardown that finds the primitives gone
	// deletes their CRDs.
	r = s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name, "TEARDOWN_PRIMITIVES=true", "TEARDOWN_CRDS=true")
	wantIn(t, "report", string(r.Report), "already removed")
	for _, crd := range crds {
		if _, err := s.env.Dynamic.Resource(crdGVR).Get(s.ctx, crd, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("CRD %s still there after TEARDOWN_CRDS=true (err %v)", crd, err)
		}
	}
}

// labelledLeftover creates, as by hand, a ConfigMap in the default
// namespace that carries app's instance label, which no Application
// tracks; the returned func deletes it.
func (s *scenario) labelledLeftover(app string) func() {
	s.t.Helper()
	var name string
	for _, a := range s.pl.Program.Apps {
		if a.Name == app {
			name = a.Application
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "left-by-hand", Labels: map[string]string{"app.kubernetes.io/instance": name}}}
	if _, err := s.env.Kube.CoreV1().ConfigMaps("default").Create(s.ctx, cm, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	return func() {
		if err := s.env.Kube.CoreV1().ConfigMaps("default").Delete(s.ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
			s.t.Fatal(err)
		}
	}
}

// workflowsOf lists the Workflows of one action (platc.io/workflow).
func (s *scenario) workflowsOf(action string) []string {
	var out []string
	for _, w := range s.workflowList() {
		if w.GetLabels()["platc.io/workflow"] == action {
			out = append(out, w.GetName())
		}
	}
	return out
}

// automated reports whether platc's Application name syncs
// automatically.
func (s *scenario) automated(name string) bool {
	s.t.Helper()
	u, err := s.env.Dynamic.Resource(applicationGVR).Namespace(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, name, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "syncPolicy", "automated")
	return ok && v != nil
}

// pushOnceStopped pushes to the platform repository (Platform.Push) as
// soon as the root no longer syncs automatically, that is once a
// teardown has stopped what would redeploy. The returned func, called
// when the teardown has ended, gives the pushed commit; it fails the test
// when the root kept its automated sync all along.
func (s *scenario) pushOnceStopped() func() string {
	ri, name, err := s.pl.root()
	if err != nil {
		s.t.Fatal(err)
	}
	type pushed struct {
		commit string
		err    error
	}
	done := make(chan struct{})
	ch := make(chan pushed, 1)
	go func() {
		for {
			u, err := ri.Get(s.ctx, name, metav1.GetOptions{})
			if err == nil {
				if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "syncPolicy", "automated"); !ok || v == nil {
					break
				}
			}
			select {
			case <-done:
				ch <- pushed{err: fmt.Errorf("the root Application %s kept its automated sync for the whole teardown", name)}
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
		c, err := s.pl.Push(s.ctx)
		ch <- pushed{c, err}
	}()
	return func() string {
		s.t.Helper()
		close(done)
		p := <-ch
		if p.err != nil {
			s.t.Fatal(p.err)
		}
		return p.commit
	}
}

// helmReleases lists, with the real helm (helm list --all-namespaces),
// which of names are installed releases, sorted.
func (s *scenario) helmReleases(names ...string) []string {
	s.t.Helper()
	cmd := exec.CommandContext(s.ctx, filepath.Join(os.Getenv("PLATC_E2E_BIN"), "helm"), "list", "--all-namespaces", "--all", "--output", "json", "--kubeconfig", s.env.Kubeconfig)
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("helm list: %v", err)
	}
	var rels []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(out, &rels); err != nil {
		s.t.Fatalf("helm list: %v\n%s", err, out)
	}
	var got []string
	for _, r := range rels {
		if slices.Contains(names, r.Name) {
			got = append(got, r.Name)
		}
	}
	slices.Sort(got)
	return got
}

// wantNamespacesGone: every namespace Argo CD created for an app is gone
// (the real namespace controller removed it), unless it still holds a
// claim or a VolumeSnapshot, which the report must list as kept.
func (s *scenario) wantNamespacesGone() {
	s.t.Helper()
	p := s.pl.Program
	seen := map[string]bool{}
	for _, a := range p.Apps {
		ns := a.Namespace
		if seen[ns] || slices.Contains([]string{"default", "kube-system", p.Platform.ArgoCD.Namespace, p.Platform.Workflows.Namespace}, ns) {
			continue
		}
		seen[ns] = true
		// Until it is gone or, holding a claim or snapshot, kept on purpose.
		err := wait.PollUntilContextTimeout(s.ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := s.env.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			if err != nil {
				return false, err
			}
			pvcs, err := s.env.Kube.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			snaps, err := s.env.Dynamic.Resource(volumeSnapshotGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			return len(pvcs.Items)+len(snaps.Items) > 0, nil
		})
		switch {
		case wait.Interrupted(err):
			s.t.Errorf("namespace %s of app %s is still there, with no claim, after teardown", ns, a.Name)
		case err != nil:
			s.t.Fatal(err)
		}
	}
}

// TARGET_SCOPE: a stack whose outside dependency is not Healthy is
// refused before anything of it syncs; once the dependency is deployed,
// a dag.yaml subset deploys one app of the stack, then the stack deploys
// the rest alone. The platform here declares no snapshot
// policy, so a teardown asking for snapshots is refused before it starts
// instead of failing at its first snapshot.
func TestScopedRuns(t *testing.T) {
	// The shop without its snapshot policy.
	dir := shopWith(t, `volumes = "snapshot"`, `volumes = "delete"`)
	s := start(t, dir)
	p := s.pl.Program

	t.Run("dependency not healthy", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitFailure, "TARGET_SCOPE=stack:services")
		wantIn(t, "report", string(r.Report), "A failed check of a dependency outside TARGET_SCOPE means that app is not Healthy")
		s.settle()
		wantNone(t, "apps synced by a refused scope", s.started(s.pl.Timeline.Since(mark)))
	})
	t.Run("dependency first", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, "TARGET_SCOPE=stack:base")
		s.settle()
		wantSame(t, "apps synced for stack:base", s.started(s.pl.Timeline.Since(mark)), []string{"database", "network"})
	})
	t.Run("dag.yaml subset and overrides", func(t *testing.T) {
		// RFC 7.4's DAG customization: api alone, with web's dependency on
		// it removed and a timeout of its own, compiled for this run only.
		dag := filepath.Join(t.TempDir(), "dag.yaml")
		if err := os.WriteFile(dag, []byte("subset: {apps: [api]}\ndependencies:\n  remove: [{app: web, dependsOn: api}]\ntimeouts: {api: {health: 4m}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitOK, "DAG_CONFIG="+dag)
		s.settle()
		wantSame(t, "apps synced for the dag.yaml subset", s.started(s.pl.Timeline.Since(mark)), []string{"api"})
		wantIn(t, "report", string(r.Report), `"dag":{"path":"`+dag, `"subset":["api"]`, `"dependencies_removed":["web → api"]`, `"scope":"dag:`)
		// A cycle an added edge would close is refused before anything runs.
		if err := os.WriteFile(dag, []byte("dependencies:\n  add: [{app: network, dependsOn: web}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := s.workflows()
		r = s.run("deploy", ExitInvalid, "DAG_CONFIG="+dag)
		wantIn(t, "report", string(r.Report), "dag.yaml:2:")
		if s.workflows() != before {
			t.Error("a refused DAG customization submitted a Workflow")
		}
	})
	t.Run("then the stack alone", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, "TARGET_SCOPE=stack:services")
		s.settle()
		wantSame(t, "apps synced for stack:services", s.started(s.pl.Timeline.Since(mark)), []string{"web"})
		s.wantConverged("network", "database", "api", "web")
		wantNone(t, "INV-1: dependency order", CheckDeployOrder(s.pl.Declared, s.pl.Timeline.Events()))
	})
	t.Run("validate judges the resource node", func(t *testing.T) {
		// RFC 5.1 in validate: database's Database, listed by the real
		// Argo CD in the Application's status.resources, read live and
		// judged by the platform's compiled health rule, counts in stack
		// base like an app. cache and metrics were never deployed here:
		// the platform is degraded, stack base is not.
		r := s.run("validate", ExitPartial)
		wantIn(t, "report", string(r.Report),
			`"resource":"app.database.resource.primary","kind":"example.com/Database","object":"database/database","wait":"healthy","health":"Healthy","judged_by":"the user health rule, as Argo CD runs it"`,
			`{"stack":"base","health":"Healthy","apps":{"Healthy":3}}`)
	})
	t.Run("snapshot refused without its RBAC", func(t *testing.T) {
		before := s.workflows()
		r := s.run("teardown", ExitInvalid, "TEARDOWN_CONFIRM="+p.Platform.Name, "PV_POLICY=snapshot")
		if !strings.Contains(string(r.Report), "snapshot") {
			t.Errorf("the report does not say why:\n%s", r.Report)
		}
		if s.workflows() != before {
			t.Error("a refused teardown submitted a Workflow")
		}
	})
	t.Run("teardown", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name, "PV_POLICY=delete")
		s.settle()
		wantNone(t, "INV-5: reverse order", CheckTeardownOrder(s.pl.Declared, s.pl.Timeline.Since(mark)))
		del := ir.VolumesDelete
		s.wantVolumes(&del)
	})
}

// snapshotsReady is when each VolumeSnapshot of the cluster was made
// ready to use, by "namespace/name"; one never made ready is put in the
// far future, after any deletion.
func (s *scenario) snapshotsReady() map[string]time.Time {
	s.t.Helper()
	list, err := s.env.Dynamic.Resource(volumeSnapshotGVR).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, sn := range list.Items {
		at, ok := s.pl.StatusWritten(KindVolumeSnapshot, sn.GetNamespace(), sn.GetName())
		if !ok {
			at = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		out[sn.GetNamespace()+"/"+sn.GetName()] = at
	}
	return out
}

// shopWith is a copy of the shop platform, with its test samples, in
// which each pair old, new of edits is replaced once.
func shopWith(t *testing.T, edits ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shop, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(src, edits[i]) {
			t.Fatalf("the shop platform has no %q", edits[i])
		}
		src = strings.Replace(src, edits[i], edits[i+1], 1)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"database-running.yaml", "database-failed.yaml"} {
		data, err := os.ReadFile(filepath.Join(shop, "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "testdata", f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "platform.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wantWaitBetween checks, on the newest Workflow's nodes as the real
// controller wrote them, that the wait task succeeded, started once
// after's task had finished, and finished before before's task started.
func (s *scenario) wantWaitBetween(wait, after, before string) {
	s.t.Helper()
	wfs := s.workflowList()
	if len(wfs) == 0 {
		s.t.Fatal("no Workflow")
	}
	newest := wfs[0]
	for _, w := range wfs[1:] {
		if w.GetCreationTimestamp().After(newest.GetCreationTimestamp().Time) {
			newest = w
		}
	}
	nodes, _, _ := unstructured.NestedMap(newest.Object, "status", "nodes")
	type span struct {
		phase         string
		start, finish time.Time
	}
	got := map[string]span{}
	for _, n := range nodes {
		m, ok := n.(map[string]any)
		if !ok || m["type"] == "Pod" {
			continue // the task's own node (Retry), not an attempt
		}
		at := func(k string) time.Time {
			v, _ := m[k].(string)
			tm, _ := time.Parse(time.RFC3339, v)
			return tm
		}
		if name, _ := m["displayName"].(string); name == wait || name == after || name == before {
			ph, _ := m["phase"].(string)
			got[name] = span{ph, at("startedAt"), at("finishedAt")}
		}
	}
	w, a, b := got[wait], got[after], got[before]
	if w.phase != "Succeeded" {
		s.t.Fatalf("the wait task %s is %q in the Workflow (nodes found: %v)", wait, w.phase, got)
	}
	// Node times have second precision.
	if w.start.Before(a.finish) || b.start.Before(w.finish) {
		s.t.Errorf("%s ran %s to %s, but %s finished at %s and %s started at %s", wait, w.start, w.finish, after, a.finish, before, b.start)
	}
}

// wantStartedAfterFailure checks, on the newest Workflow's nodes as the
// real controller wrote them, that app's task started after failed's
// task had failed: the DAG went on scheduling after the failure.
func (s *scenario) wantStartedAfterFailure(app, failed string) {
	s.t.Helper()
	wfs := s.workflowList()
	if len(wfs) == 0 {
		s.t.Fatal("no Workflow")
	}
	newest := wfs[0]
	for _, w := range wfs[1:] {
		if w.GetCreationTimestamp().After(newest.GetCreationTimestamp().Time) {
			newest = w
		}
	}
	nodes, _, _ := unstructured.NestedMap(newest.Object, "status", "nodes")
	var started, failedAt time.Time
	for _, n := range nodes {
		m, ok := n.(map[string]any)
		if !ok || m["type"] == "Pod" {
			continue // the task's own node (Retry), not an attempt
		}
		at := func(k string) time.Time {
			v, _ := m[k].(string)
			tm, _ := time.Parse(time.RFC3339, v)
			return tm
		}
		switch m["displayName"] {
		case app:
			started = at("startedAt")
		case failed:
			if m["phase"] != "Failed" {
				s.t.Errorf("%s's task is %v, want Failed", failed, m["phase"])
			}
			failedAt = at("finishedAt")
		}
	}
	if started.IsZero() || failedAt.IsZero() {
		s.t.Fatalf("no task node for %s or %s in the Workflow", app, failed)
	}
	// Node times have second precision: strictly after.
	if !started.After(failedAt) {
		s.t.Errorf("%s's task started at %s, not after %s failed at %s: the test no longer shows a pending independent app", app, started, failed, failedAt)
	}
}
