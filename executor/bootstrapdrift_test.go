package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/internal/exitcode"
)

// driftDay0 is the platform as bootstrapped: one app from a chart
// repository in project "team", one kind with a user health rule.
const driftDay0 = `
platform "shop" {
  argocd {
    namespace = "argocd"
    project   = "team"
  }
  git {
    repo_url = "https://git.example.com/shop.git"
    revision = "v1"
  }
}
environment "staging" {}
app "queue" {
  namespace        = "queue"
  custom_resources = ["example.com/Queue"]
  source {
    chart    = "queue"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
  }
}
health "example.com/Queue" {
  healthy = obj.status.ready == true
}
`

// driftDay2 is day 2: a new kind with its own rule and a changed rule
// for Queue, an app from a new chart repository in "team", an app in a
// new project "data", and a new revision.
const driftDay2 = `
platform "shop" {
  argocd {
    namespace = "argocd"
    project   = "team"
  }
  git {
    repo_url = "https://git.example.com/shop.git"
    revision = "v2"
  }
}
environment "staging" {}
app "queue" {
  namespace        = "queue"
  custom_resources = ["example.com/Queue"]
  source {
    chart    = "queue"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
  }
}
app "db" {
  namespace        = "db"
  custom_resources = ["db.example.com/Cluster"]
  source {
    chart    = "db"
    repo_url = "https://db.example.com/charts"
    version  = "2.0.0"
  }
}
app "cache" {
  namespace = "cache"
  project   = "data"
  source {
    chart    = "cache"
    repo_url = "https://charts.example.com"
    version  = "3.0.0"
  }
}
health "example.com/Queue" {
  healthy = obj.status.ready == true && obj.status.replicas > 0
}
health "db.example.com/Cluster" {
  healthy = obj.status.phase == "Ready"
}
`

// bootstrapped is the cluster the bootstrap leaves for src, built with
// emit/argocd's own objects: argocd-cm with the health entries, the
// AppProjects and the root Application.
func bootstrapped(t *testing.T, src string) (*kubefake.Clientset, *dynfake.FakeDynamicClient) {
	t.Helper()
	p := compileEnv(t, src, "staging")
	var objs []runtime.Object
	for _, pr := range argocd.Projects(p) {
		objs = append(objs, asUnstructured(t, pr))
	}
	objs = append(objs, asUnstructured(t, argocd.Root(p)))
	dc := dynfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		cluster.Applications: "ApplicationList", cluster.AppProjects: "AppProjectList",
	}, objs...)
	return kubefake.NewSimpleClientset(bootstrapKube(t, p, true)...), dc
}

// bootstrapKube are the core objects the bootstrap of p leaves: argocd-cm
// and argocd-rbac-cm as the argo-cd release renders configs.cm and
// configs.rbac, the token Secret and, with releases, every Helm release's
// Secret.
func bootstrapKube(t *testing.T, p *ir.Program, releases bool) []runtime.Object {
	t.Helper()
	configs := argocd.ChartValues(p)["configs"].(map[string]any)
	cm := argocd.HealthConfigMap(p)
	for k, v := range configs["cm"].(map[string]any) {
		cm.Data[k] = v.(string)
	}
	rbac := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: argocdRBACCM, Namespace: cm.Namespace}, Data: map[string]string{}}
	for k, v := range configs["rbac"].(map[string]any) {
		rbac.Data[k] = v.(string)
	}
	ts := p.Platform.ArgoCD.TokenSecret
	tok := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ts.Name, Namespace: p.Platform.Workflows.Namespace}, Data: map[string][]byte{ts.Key: []byte("token")}}
	objs := []runtime.Object{cm, rbac, tok}
	if releases {
		for _, s := range bootstrapReleases(t, p) {
			objs = append(objs, s)
		}
	}
	return objs
}

func asUnstructured(t *testing.T, obj any) *unstructured.Unstructured {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func driftOf(t *testing.T, kc *kubefake.Clientset, dc *dynfake.FakeDynamicClient, p *ir.Program) []Drift {
	t.Helper()
	c := &cluster.Client{Kube: kc, Dynamic: dc, CallTimeout: 5 * time.Second}
	res := bootstrapDrift(context.Background(), c, &built{p: p}, p.Apps)
	if len(res.Errs) > 0 {
		t.Fatal(res.Errs)
	}
	return res.Drift
}

func TestBootstrapDriftNoneWhenBootstrapped(t *testing.T) {
	for _, src := range []string{driftDay0, driftDay2} {
		kc, dc := bootstrapped(t, src)
		if d := driftOf(t, kc, dc, compileEnv(t, src, "staging")); len(d) != 0 {
			t.Errorf("a cluster bootstrapped from this very platform drifts: %+v", d)
		}
	}
}

func TestBootstrapDriftDayTwo(t *testing.T) {
	kc, dc := bootstrapped(t, driftDay0)
	p := compileEnv(t, driftDay2, "staging")
	got := map[string]Drift{}
	for _, d := range driftOf(t, kc, dc, p) {
		got[d.What+" "+d.Object+" "+d.Message] = d
	}
	want := []Drift{
		{What: DriftHealth, Object: "db.example.com/Cluster", Message: "argocd-cm's health customization for db.example.com/Cluster: Lua script missing", Apps: []string{"db"}, Blocking: true},
		{What: DriftHealth, Object: "example.com/Queue", Message: "argocd-cm's health customization for example.com/Queue: Lua script different", Apps: []string{"queue"}, Blocking: true},
		{What: DriftProject, Object: "data", Message: "AppProject data does not exist; Argo CD refuses every Application in it", Apps: []string{"cache"}, Blocking: true},
		{What: DriftProject, Object: "team", Message: "AppProject team does not allow repository https://db.example.com/charts; Argo CD refuses db", Apps: []string{"db"}, Blocking: true},
		{What: DriftRoot, Object: "platc-root", Message: `the root Application platc-root follows another source: targetRevision is "v1", the platform says "v2"`},
		// The releases say the same from Helm's side: argo-cd's values
		// (configs.cm, configs.rbac) and argocd-apps' (projects, root).
		{What: DriftRelease, Object: "argocd", Message: "Helm release argocd/argocd (chart argo-cd), revision 1: values differ at configs.cm.resource.customizations.health.db.example.com_Cluster (missing), configs.cm.resource.customizations.health.example.com_Queue, configs.rbac.policy.csv"},
		{What: DriftRelease, Object: "platc-root", Message: "Helm release argocd/platc-root (chart argocd-apps), revision 1: values differ at applications.platc-root.source.targetRevision, projects.data (missing), projects.team.sourceRepos"},
		// db's project "team" may now sync db's namespace and cache's "data".
		{What: DriftRBAC, Object: "argocd-rbac-cm", Message: "ConfigMap argocd-rbac-cm: policy.csv different"},
	}
	for _, w := range want {
		g, ok := got[w.What+" "+w.Object+" "+w.Message]
		if !ok {
			t.Errorf("missing drift %+v", w)
			continue
		}
		if strings.Join(g.Apps, ",") != strings.Join(w.Apps, ",") || g.Blocking != w.Blocking {
			t.Errorf("drift %s %s: apps %v blocking %v, want %v %v", w.What, w.Object, g.Apps, g.Blocking, w.Apps, w.Blocking)
		}
		delete(got, w.What+" "+w.Object+" "+w.Message)
	}
	for k := range got {
		t.Errorf("unexpected drift %s", k)
	}

	// Only apps in scope make project drift blocking: a deploy of queue
	// alone is not refused for db's repository or cache's project.
	c := &cluster.Client{Kube: kc, Dynamic: dc, CallTimeout: 5 * time.Second}
	scoped := bootstrapDrift(context.Background(), c, &built{p: p}, []*ir.App{p.App("queue")})
	for _, d := range scoped.Drift {
		if d.What == DriftProject && d.Blocking {
			t.Errorf("project drift blocks a deploy of queue alone: %+v", d)
		}
	}
}

func TestBootstrapDriftAbsentAndOpenLibs(t *testing.T) {
	// Nothing installed by the bootstrap at all: every compiled rule
	// (platc's own Application rule included), every project and the
	// root are reported.
	p := compileEnv(t, driftDay0, "staging")
	dc := dynfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		cluster.Applications: "ApplicationList", cluster.AppProjects: "AppProjectList"})
	d := driftOf(t, kubefake.NewSimpleClientset(), dc, p)
	var text []string
	for _, x := range d {
		text = append(text, x.What+" "+x.Object+": "+x.Message)
	}
	all := strings.Join(text, "\n")
	if strings.Contains(all, "release ") {
		t.Errorf("no Helm release of the bootstrap is there, so none is platc's to compare:\n%s", all)
	}
	for _, s := range []string{
		"rbac argocd-cm: ConfigMap argocd-cm does not exist, so Argo CD has no accounts.platc",
		"rbac argocd-rbac-cm: ConfigMap argocd-rbac-cm does not exist, so Argo CD has no policy.csv",
		"token platc-argocd-token: the automation token Secret argo/platc-argocd-token does not exist",
		"health argoproj.io/Application: ConfigMap argocd-cm does not exist",
		"health example.com/Queue: ConfigMap argocd-cm does not exist",
		"project platc-orchestration: AppProject platc-orchestration does not exist",
		"project team: AppProject team does not exist",
		"root platc-root: the root Application platc-root does not exist",
	} {
		if !strings.Contains(all, s) {
			t.Errorf("missing %q in\n%s", s, all)
		}
	}

	// useOpenLibs is part of the rule: a rule that needs Lua's standard
	// library and lacks the flag fails in Argo CD.
	cm := argocd.HealthConfigMap(p)
	cm.Data["resource.customizations.useOpenLibs.example.com_Queue"] = "true"
	want := map[string]any{}
	for k, v := range cm.Data {
		want[k] = v
	}
	delete(cm.Data, "resource.customizations.useOpenLibs.example.com_Queue")
	got := compareHealth(want, cm.Data)
	if len(got) != 1 || strings.Join(got["example.com/Queue"], ",") != "useOpenLibs missing" {
		t.Errorf("useOpenLibs dropped: %v", got)
	}
}

func TestRepoAllowed(t *testing.T) {
	for _, c := range []struct {
		repos []string
		repo  string
		want  bool
	}{
		{[]string{"https://a.example.com"}, "https://a.example.com", true},
		{[]string{"https://a.example.com"}, "https://b.example.com", false},
		{[]string{"*"}, "https://b.example.com", true},
		{[]string{"https://git.example.com/*"}, "https://git.example.com/x", true},
		{nil, "https://a.example.com", false},
	} {
		if got := repoAllowed(c.repos, c.repo); got != c.want {
			t.Errorf("repoAllowed(%v, %s) = %v", c.repos, c.repo, got)
		}
	}
}

// TestDeployRefusesHealthDrift: the deploy stops before the workflow
// with exit 1, names the kinds and the fix; a dry run says the same; the
// report's text and JSON carry the section.
func TestDeployRefusesHealthDrift(t *testing.T) {
	kc, dc := bootstrapped(t, driftDay0)
	p := compileEnv(t, driftDay2, "staging")
	for _, dry := range []bool{false, true} {
		cfg := &config.Config{Action: config.Deploy, Program: p, ScopeApps: p.Apps, Scope: config.Scope{Kind: config.ScopePlatform}, DryRun: dry}
		r := &run{cfg: cfg, env: Env{Now: time.Now}, log: logging.New(testWriter{t}, logging.Options{Level: logging.Debug}), start: time.Now(),
			client: &cluster.Client{Kube: kc, Dynamic: dc, CallTimeout: 5 * time.Second}}
		r.rep = &Report{Action: "deploy", Components: []Component{}, Failures: []Failure{}, Metrics: map[string]int{}, Recommend: []string{}}
		dc := r.reportBootstrap(context.Background(), p.Apps)
		r.recommendDrift(dc)
		blocking := blockingOf(dc.Drift)
		if code := r.refuseDrift(blocking); code != exitcode.Failure {
			t.Errorf("dry run %v: exit %d, want %d", dry, code, exitcode.Failure)
		}
		var text, js bytes.Buffer
		r.rep.WriteText(&text)
		if err := r.rep.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		prefix := "refused to start the deploy workflow: "
		if dry {
			prefix = "a real run would refuse to start the deploy workflow: "
		}
		for _, s := range []string{
			prefix + "argocd-cm's health customizations differ from the compiled ones for db.example.com/Cluster and example.com/Queue; Argo CD would refuse app cache (AppProject data) and app db (AppProject team), whose repository the project does not allow",
			"Bootstrap drift (installed by the bootstrap",
			// One line per kind, saying what differs.
			"\n  health: argocd-cm's health customization for db.example.com/Cluster: Lua script missing (used by db) [blocks deploy]; argocd-cm's health customization for example.com/Queue: Lua script different (used by queue) [blocks deploy]\n",
			"\n  root: the root Application platc-root follows another source: targetRevision is \"v1\", the platform says \"v2\"\n",
			"\n  release: Helm release argocd/argocd (chart argo-cd), revision 1: values differ at configs.cm.resource.customizations.health.db.example.com_Cluster (missing)",
			"\n  rbac: ConfigMap argocd-rbac-cm: policy.csv different\n",
			"platc deploy reconciles it before starting the deploy workflow",
			"cd generated/staging/ansible && ansible-playbook site.yml",
		} {
			if !strings.Contains(text.String(), s) {
				t.Errorf("dry run %v: report lacks %q:\n%s", dry, s, text.String())
			}
		}
		if !strings.Contains(js.String(), `"bootstrap_drift":[{"what":"release","object":"argocd","message":"Helm release argocd/argocd (chart argo-cd), revision 1: values differ at`) {
			t.Errorf("JSON report lacks bootstrap_drift: %s", js.String())
		}
		if strings.Contains(text.String(), "obj.status") {
			t.Error("the report prints Lua")
		}
	}
}

// A credential added to a running platform: its Secrets do not exist
// until the bootstrap runs again, which the drift says (and a deploy
// reconciles); once they are there, with Argo CD's label, nothing
// drifts. A repository Secret without the label is drift too: Argo CD
// would not find it.
func TestBootstrapDriftCredentials(t *testing.T) {
	kc, dc := bootstrapped(t, driftDay0)
	src := strings.Replace(driftDay0, `    revision = "v1"
  }
}`, `    revision = "v1"
  }
  credential "charts" {
    type     = "basic_auth"
    repo_url = "https://charts.example.com"
  }
  credential "registry" {
    type       = "docker_config"
    namespaces = ["queue"]
  }
}`, 1)
	p := compileEnv(t, src, "staging")
	var got []string
	for _, d := range driftOf(t, kc, dc, p) {
		got = append(got, d.What+" "+d.Object+": "+d.Message)
	}
	want := []string{
		"credential platc-repo-charts: the Secret argocd/platc-repo-charts of credential charts does not exist; Argo CD cannot read https://charts.example.com",
		"credential registry: the Secret queue/registry of credential registry does not exist; the apps in queue cannot use it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("drift:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "platc-repo-charts", Namespace: "argocd", Labels: map[string]string{"argocd.argoproj.io/secret-type": "repository"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "registry", Namespace: "queue"}},
	} {
		if _, err := kc.CoreV1().Secrets(s.Namespace).Create(context.Background(), s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if d := driftOf(t, kc, dc, p); len(d) != 0 {
		t.Errorf("drift with the Secrets there: %+v", d)
	}

	s, err := kc.CoreV1().Secrets("argocd").Get(context.Background(), "platc-repo-charts", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Labels = nil
	if _, err := kc.CoreV1().Secrets("argocd").Update(context.Background(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := driftOf(t, kc, dc, p); len(d) != 1 || !strings.Contains(d[0].Message, "is not labelled argocd.argoproj.io/secret-type=repository") {
		t.Errorf("drift of an unlabelled repository Secret: %+v", d)
	}
}
