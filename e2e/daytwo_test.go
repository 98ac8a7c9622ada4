package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
)

// Issue 20, on a running platform: a day-2 version of the shop removes
// cache together with metrics, which depends on it, and changes api's
// values. Deploy without consent syncs only api (INV-6: nothing else
// changed), reports the two removed apps with their recorded
// dependencies, deletes nothing and exits 2. With PRUNE=true deploy
// deletes them dependents first (metrics before cache), each under the
// volume policy it recorded (metrics delete: its claim goes; cache
// retain: its claim stays), syncs nothing, and exits 0; a third deploy
// finds nothing to do.
func TestDayTwoRemovalAndChange(t *testing.T) {
	v1 := shopWith(t, `  teardown {
    volumes = "retain"
  }
}

health`, `  teardown {
    volumes = "delete"
  }
}

health`)
	s := start(t, v1)
	s.run("deploy", ExitOK)
	s.settle()
	s.wantConverged()
	// RFC 5.1's resource node: api's wait for database's Database ran
	// in the real DAG, after database and before api. (A resume skips it
	// once database converged and the Database is Healthy.)
	s.wantWaitBetween("wait-database-primary", "database", "api")
	metrics, cache := *s.pl.Program.App("metrics"), *s.pl.Program.App("cache")

	// v2: cache and metrics removed, api's host changed.
	v2 := shopWith(t,
		`host = "api.${env.domain}"`, `host = "api-v2.${env.domain}"`,
		`app "cache" {
  namespace         = "cache"
  expected_duration = "30s"
  source {
    chart    = "cache"
    repo_url = "https://charts.shop.test/stable"
    version  = "0.3.0"
  }
  teardown {
    volumes = "retain"
  }
}`, ``,
		`app "metrics" {
  namespace         = "metrics"
  depends_on        = [app.cache]
  expected_duration = "30s"
  source {
    chart    = "metrics"
    repo_url = "https://charts.shop.test/stable"
    version  = "4.2.0"
  }
  teardown {
    volumes = "retain"
  }
}`, ``)
	if err := s.pl.Change(s.ctx, v2); err != nil {
		t.Fatal(err)
	}

	t.Run("reported without consent, changed app synced", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitPartial)
		s.settle()
		wantSame(t, "apps synced by the day-2 deploy", s.started(s.pl.Timeline.Since(mark)), []string{"api"})
		got := removedApps(t, r.Report)
		if len(got) != 2 || got[0].Application != "metrics" || got[1].Application != "cache" {
			t.Fatalf("removed apps %+v, want metrics then cache", got)
		}
		if got[0].Status != "left" || len(got[0].DependsOn) != 1 || got[0].DependsOn[0] != "cache" {
			t.Errorf("metrics reported as %+v, want left, depending on cache", got[0])
		}
		wantIn(t, "report", string(r.Report), "PRUNE=true")
		for _, name := range []string{metrics.Application, cache.Application} {
			if _, err := s.env.Dynamic.Resource(applicationGVR).Namespace(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, name, metav1.GetOptions{}); err != nil {
				t.Errorf("a deploy without PRUNE=true: Application %s: %v", name, err)
			}
		}
	})

	t.Run("pruned in reverse order under their volume policies", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, "PRUNE=true")
		s.settle()
		evs := s.pl.Timeline.Since(mark)
		wantNone(t, "sync operations of a prune-only deploy", s.started(evs))
		gone, ok1 := First(evs, "metrics", Deleted)
		dep, ok2 := First(evs, "cache", Deleted)
		switch {
		case !ok1 || !ok2:
			t.Fatalf("metrics deleted %v, cache deleted %v", ok1, ok2)
		case dep.Before(gone):
			t.Errorf("cache was deleted at %s, before metrics, which depended on it, at %s", dep.Format(timeFormat), gone.Format(timeFormat))
		}
		if _, err := s.env.Kube.CoreV1().PersistentVolumeClaims(metrics.Namespace).Get(s.ctx, claimName(&metrics), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("metrics recorded volumes delete, but its claim is still there (%v)", err)
		}
		if _, err := s.env.Kube.CoreV1().PersistentVolumeClaims(cache.Namespace).Get(s.ctx, claimName(&cache), metav1.GetOptions{}); err != nil {
			t.Errorf("cache recorded volumes retain, but its claim is gone: %v", err)
		}
		s.wantConverged()
	})

	t.Run("nothing left to do", func(t *testing.T) {
		before := s.workflows()
		r := s.run("deploy", ExitOK, "PRUNE=true")
		if len(removedApps(t, r.Report)) != 0 || s.workflows() != before {
			t.Errorf("a converged day-2 platform still had work:\n%s", r.Report)
		}
	})
}

type removedEntry struct {
	Application string   `json:"application"`
	DependsOn   []string `json:"depends_on"`
	Status      string   `json:"status"`
}

func removedApps(t *testing.T, report []byte) []removedEntry {
	t.Helper()
	var r struct {
		RemovedApps []removedEntry `json:"removed_apps"`
	}
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, report)
	}
	return r.RemovedApps
}

// Issue 20's other four day-2 changes, in one day-2 version of the shop
// (each scenario pays a real bootstrap, so they share one):
//
//  1. an addition: queue, from a chart repository host the platform
//     never used (charts.partners.test) in an AppProject it never had
//     (partners), with a custom resource kind (example.com/Queue) and
//     the platform's health rule for it, and worker, which depends on
//     queue. Queue's operator is slow: its Queue gets a status 20 s
//     after it appears, while its pods start at once. Without the rule
//     Argo CD has no health check for the kind and calls queue Healthy
//     as soon as its pods run; with it, worker's sync starts only after
//     the operator wrote the status;
//  4. a changed health rule for example.com/Database, already deployed:
//     validate reports the drift before the deploy, the deploy
//     reconciles it, and argocd-cm then holds the compiled Lua;
//  5. platform.git.revision moves from v1.0.0 to v1.1.0, and the deploy
//     moves the root Application to it;
//  6. a changed value of an Argo component: the argo-cd release's
//     configs.rbac policy.csv, which gains the partners project, reaches
//     the release's values and the argocd-rbac-cm the chart writes.
//
// The same version removes metrics, and the deploy runs with PRUNE=true:
// while the bootstrap runs again, the root still holds metrics'
// Application (it never prunes), so the gitops-handoff role must not wait
// for it to be Synced.
//
// Nothing is written by hand: the deploy runs the generated bootstrap
// again (real ansible-playbook, real Helm upgrades of the stand-in
// charts), and Argo CD, the workflow controller and the steps do the
// rest.
func TestDayTwoPlatformChanges(t *testing.T) {
	const slow = 20 * time.Second
	s := startWith(t, PlatformOptions{Path: shop, SlowKinds: map[string]time.Duration{"example.com/Queue": slow}})
	s.run("deploy", ExitOK)
	s.settle()
	s.wantConverged()
	oldDatabaseLua := s.argocdCM(t)[healthKey("example.com", "Database")]

	v2 := shopWith(t,
		`revision = "v1.0.0"`, `revision = "v1.1.0"`,
		`"waiting for the database"`, `"waiting for the database to start"`,
		`health "example.com/Database" {`, dayTwoAddition+`
health "example.com/Database" {`,
		// Removed in the same version: the root, which never prunes,
		// keeps its Application until PRUNE=true deletes it.
		metricsApp, ``)
	for name, body := range map[string]string{"queue-ready.yaml": queueReady, "queue-failed.yaml": queueFailed} {
		if err := os.WriteFile(filepath.Join(v2, "testdata", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.pl.Change(s.ctx, v2); err != nil {
		t.Fatal(err)
	}
	values := s.compiledArgoCDValues(t)
	compiledCM := values.Configs.CM
	for _, k := range []string{healthKey("example.com", "Database"), healthKey("example.com", "Queue")} {
		if compiledCM[k] == "" {
			t.Fatalf("the day-2 version compiles no %s", k)
		}
	}
	if compiledCM[healthKey("example.com", "Database")] == oldDatabaseLua {
		t.Fatal("the day-2 version's Database rule compiles to the deployed Lua; the scenario changes nothing")
	}

	t.Run("validate reports the drift before the deploy", func(t *testing.T) {
		// queue and worker have no Applications yet (the root still
		// follows v1.0.0): unhealthy for validate (RFC 5.3), exit 1.
		r := s.run("validate", ExitFailure)
		drift := bootstrapDrift(t, r.Report, "bootstrap_drift")
		wantDrift(t, drift, "health", "example.com/Database", true)
		wantDrift(t, drift, "health", "example.com/Queue", true)
		wantDrift(t, drift, "project", "partners", true)
		wantDrift(t, drift, "root", "platc-root", false)
		wantDrift(t, drift, "rbac", "", false)
		wantDrift(t, drift, "release", "argocd", false)
		// The drift alone: the database app is healthy, so validate of
		// its scope exits 2 (degraded) for the drift.
		r = s.run("validate", ExitPartial, "TARGET_SCOPE=app:database")
		wantDrift(t, bootstrapDrift(t, r.Report, "bootstrap_drift"), "health", "example.com/Database", true)
		if got := s.argocdCM(t)[healthKey("example.com", "Database")]; got != oldDatabaseLua {
			t.Error("validate changed argocd-cm")
		}
	})

	t.Run("deploy reconciles, then deploys the addition in order", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitOK, "PRUNE=true")
		s.settle()
		rec := bootstrapDrift(t, r.Report, "reconciled")
		for _, what := range []string{"health", "project", "root", "rbac", "release"} {
			wantDrift(t, rec, what, "", false)
		}
		if left := bootstrapDrift(t, r.Report, "bootstrap_drift"); len(left) > 0 {
			t.Errorf("drift left after the deploy: %+v", left)
		}
		evs := s.pl.Timeline.Since(mark)
		// INV-6: api, web, network, database and cache did not change (a
		// health rule is not part of an Application).
		wantSame(t, "apps synced by the day-2 deploy", s.started(evs), []string{"queue", "worker"})
		if _, ok := First(evs, "metrics", Deleted); !ok {
			t.Error("metrics, removed from the platform, was not deleted by the deploy with PRUNE=true")
		}
		s.wantConverged()

		// 1. The rule was in argocd-cm before worker started.
		cm := s.argocdCM(t)
		if cm[healthKey("example.com", "Queue")] != compiledCM[healthKey("example.com", "Queue")] {
			t.Error("argocd-cm's health customization for example.com/Queue is not the compiled Lua")
		}
		queue := s.pl.Program.App("queue")
		created, written := s.queueTimes(t, queue)
		if d := written.Sub(created); d < slow-2*time.Second {
			t.Errorf("the slow operator wrote the Queue's status %s after it appeared, want about %s", d, slow)
		}
		// Only the Queue held queue back: its Deployment was Available
		// long before. Without the rule (Argo CD has no check of its own
		// for the kind) queue would have been Healthy then.
		dep, err := s.env.Kube.AppsV1().Deployments(queue.Namespace).Get(s.ctx, queue.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var available time.Time
		for _, c := range dep.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue {
				available = c.LastTransitionTime.Time
			}
		}
		if available.IsZero() || !available.Before(written.Add(-5*time.Second)) {
			t.Errorf("queue's Deployment became Available at %s, not well before its Queue's status (%s): the scenario would not tell a missing rule", available.Format(timeFormat), written.Format(timeFormat))
		}
		workerStarted, ok := First(evs, "worker", OperationStarted)
		if !ok {
			t.Fatal("worker was never synced")
		}
		queueHealthy, _ := First(evs, "queue", Healthy)
		t.Logf("Queue created %s, queue's Deployment Available %s, the Queue's status written %s, queue Healthy %s, worker's sync started %s",
			created.Format(timeFormat), available.Format(timeFormat), written.Format(timeFormat), queueHealthy.Format(timeFormat), workerStarted.Format(timeFormat))
		if workerStarted.Before(written) {
			t.Errorf("worker's sync started at %s, before queue's operator wrote the Queue's status at %s: Argo CD judged queue without the platform's rule",
				workerStarted.Format(timeFormat), written.Format(timeFormat))
		}
		if queueHealthy.Before(written) {
			t.Errorf("queue turned Healthy at %s, before its Queue had a status (%s)", queueHealthy.Format(timeFormat), written.Format(timeFormat))
		}
		proj, err := s.env.Dynamic.Resource(appProjectGVR).Namespace(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, "partners", metav1.GetOptions{})
		if err != nil {
			t.Errorf("AppProject partners: %v", err)
		} else if repos, _, _ := unstructured.NestedStringSlice(proj.Object, "spec", "sourceRepos"); !slices.Contains(repos, "https://charts.partners.test/stable") {
			t.Errorf("AppProject partners allows %v, not https://charts.partners.test/stable", repos)
		}

		// 4. The changed rule reached argocd-cm.
		if cm[healthKey("example.com", "Database")] != compiledCM[healthKey("example.com", "Database")] {
			t.Error("argocd-cm's health customization for example.com/Database is not the compiled Lua")
		}

		// 5. The root follows the new revision and synced its commit.
		root, err := s.env.Dynamic.Resource(applicationGVR).Namespace(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, "platc-root", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		target, _, _ := unstructured.NestedString(root.Object, "spec", "source", "targetRevision")
		synced, _, _ := unstructured.NestedString(root.Object, "status", "operationState", "syncResult", "revision")
		if target != "v1.1.0" || synced != s.pl.Revision {
			t.Errorf("the root targets %q and last synced %s, want v1.1.0 and %s", target, synced, s.pl.Revision)
		}

		// 6. The argo-cd release carries the new RBAC policy, and so
		// does the ConfigMap its chart wrote.
		policy := values.Configs.RBAC["policy.csv"]
		if !strings.Contains(policy, "partners") {
			t.Fatalf("the compiled policy.csv does not mention the partners project:\n%s", policy)
		}
		rel := s.releaseValues(t, s.pl.Program.Platform.ArgoCD.Namespace, "argocd")
		if rel.Configs.RBAC["policy.csv"] != policy {
			t.Errorf("the argocd release's configs.rbac policy.csv is not the compiled one:\n%s", rel.Configs.RBAC["policy.csv"])
		}
		if rel.Configs.CM[healthKey("example.com", "Database")] != compiledCM[healthKey("example.com", "Database")] {
			t.Error("the argocd release's configs.cm does not hold the changed Database rule")
		}
		rbac, err := s.env.Kube.CoreV1().ConfigMaps(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, "argocd-rbac-cm", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rbac.Data["policy.csv"] != policy {
			t.Errorf("argocd-rbac-cm's policy.csv is not the compiled one:\n%s", rbac.Data["policy.csv"])
		}
	})

	t.Run("nothing left to do", func(t *testing.T) {
		before := s.workflows()
		r := s.run("deploy", ExitOK)
		if d := bootstrapDrift(t, r.Report, "bootstrap_drift"); len(d) > 0 || s.workflows() != before {
			t.Errorf("a converged day-2 platform still had work (%d workflows before, %d after):\n%s", before, s.workflows(), r.Report)
		}
	})
}

// metricsApp is the shop's metrics app, as platform.hcl declares it.
const metricsApp = `app "metrics" {
  namespace         = "metrics"
  depends_on        = [app.cache]
  expected_duration = "30s"
  source {
    chart    = "metrics"
    repo_url = "https://charts.shop.test/stable"
    version  = "4.2.0"
  }
  teardown {
    volumes = "retain"
  }
}`

// dayTwoAddition is the day-2 addition of TestDayTwoPlatformChanges.
const dayTwoAddition = `app "queue" {
  namespace         = "queue"
  project           = "partners"
  expected_duration = "30s"
  custom_resources  = ["example.com/Queue"]
  source {
    chart    = "queue"
    repo_url = "https://charts.partners.test/stable"
    version  = "1.0.0"
  }
  timeouts {
    health = "1m"
  }
}

app "worker" {
  namespace         = "worker"
  depends_on        = [app.queue]
  expected_duration = "30s"
  source {
    chart    = "worker"
    repo_url = "https://charts.shop.test/stable"
    version  = "1.0.0"
  }
}

health "example.com/Queue" {
  healthy  = obj.status.phase == "Ready"
  degraded = obj.status.phase == "Failed"
  message  = coalesce(obj.status.message, "waiting for the queue")

  test "ready" {
    object       = "testdata/queue-ready.yaml"
    want         = "Healthy"
    want_message = "3 partitions ready"
  }
  test "failed" {
    object       = "testdata/queue-failed.yaml"
    want         = "Degraded"
    want_message = "partition 2 lost its leader"
  }
}
`

const queueReady = `apiVersion: example.com/v1
kind: Queue
metadata:
  name: orders
spec:
  partitions: 3
status:
  phase: Ready
  message: 3 partitions ready
`

const queueFailed = `apiVersion: example.com/v1
kind: Queue
metadata:
  name: orders
spec:
  partitions: 3
status:
  phase: Failed
  message: partition 2 lost its leader
`

var appProjectGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}

func healthKey(group, kind string) string {
	return "resource.customizations.health." + group + "_" + kind
}

// chartValuesRead is the part of the argo-cd chart values the scenario
// reads.
type chartValuesRead struct {
	Configs struct {
		CM   map[string]string `json:"cm"`
		RBAC map[string]string `json:"rbac"`
	} `json:"configs"`
}

// compiledArgoCDValues reads argocd/values.yaml of the platform's
// current build.
func (s *scenario) compiledArgoCDValues(t *testing.T) chartValuesRead {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.pl.Generated, "argocd", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var v chartValuesRead
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatalf("argocd/values.yaml: %v", err)
	}
	return v
}

// releaseValues asks the real Helm CLI for the values of a release, as
// its latest revision records them.
func (s *scenario) releaseValues(t *testing.T, ns, release string) chartValuesRead {
	t.Helper()
	kc, err := s.env.kubeconfigFile(ns)
	if err != nil {
		t.Fatal(err)
	}
	helm := ""
	for _, dir := range filepath.SplitList(s.env.ToolPath()) {
		if _, err := os.Stat(filepath.Join(dir, "helm")); err == nil {
			helm = filepath.Join(dir, "helm")
			break
		}
	}
	if helm == "" {
		t.Fatalf("no helm on the environment's PATH %s", s.env.ToolPath())
	}
	cmd := exec.CommandContext(s.ctx, helm, "get", "values", release, "-n", ns, "-o", "json")
	cmd.Env = []string{"PATH=" + s.env.ToolPath(), "HOME=" + s.env.Dir(), "KUBECONFIG=" + kc}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm get values %s: %v", release, err)
	}
	var v chartValuesRead
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("helm get values %s: %v\n%s", release, err, out)
	}
	return v
}

// argocdCM is argocd-cm's data.
func (s *scenario) argocdCM(t *testing.T) map[string]string {
	t.Helper()
	cm, err := s.env.Kube.CoreV1().ConfigMaps(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, "argocd-cm", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

// queueTimes is when queue's Queue was created (the API server's
// timestamp, second precision) and when the slow operator wrote its
// status (this machine's clock, as the timeline's).
func (s *scenario) queueTimes(t *testing.T, queue *ir.App) (created, written time.Time) {
	t.Helper()
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "queues"}
	list, err := s.env.Dynamic.Resource(gvr).Namespace(queue.Namespace).List(s.ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("queue's Queue: %v (%d found)", err, len(list.Items))
	}
	u := list.Items[0]
	written, ok := s.pl.StatusWritten("example.com/Queue", u.GetNamespace(), u.GetName())
	if !ok {
		t.Fatalf("the operator never wrote the status of Queue %s/%s", u.GetNamespace(), u.GetName())
	}
	return u.GetCreationTimestamp().Time, written
}

type driftEntry struct {
	What     string `json:"what"`
	Object   string `json:"object"`
	Message  string `json:"message"`
	Blocking bool   `json:"blocking"`
}

// bootstrapDrift reads the report's bootstrap_drift or reconciled list.
func bootstrapDrift(t *testing.T, report []byte, field string) []driftEntry {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, report)
	}
	var out []driftEntry
	if raw := r[field]; len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("report's %s: %v", field, err)
		}
	}
	return out
}

// wantDrift checks that drift has an entry of kind what whose object or
// message names obj (any, when obj is empty), blocking when blocking.
func wantDrift(t *testing.T, drift []driftEntry, what, obj string, blocking bool) {
	t.Helper()
	for _, d := range drift {
		if d.What == what && (obj == "" || strings.Contains(d.Object, obj) || strings.Contains(d.Message, obj)) {
			if blocking && !d.Blocking {
				t.Errorf("%s drift %q does not block the deploy", what, d.Message)
			}
			return
		}
	}
	t.Errorf("no %s drift naming %q in %+v", what, obj, drift)
}
