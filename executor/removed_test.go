package executor

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	sigyaml "sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/lang"
)

// The platform as it was deployed: web depended on db and api, db on
// cache. Day 2 removes web, db and cache together, and keeps api.
const day1 = `
platform "shop" {
  argocd {
    namespace = "argocd"
  }
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
environment "staging" {}
environment "prod" {}
app "cache" {
  namespace = "data"
  source { path = "cache" }
  teardown {
    volumes = "delete"
    timeout = "5m"
  }
}
app "db" {
  namespace  = "data"
  depends_on = [app.cache]
  source { path = "db" }
}
app "api" {
  namespace = "api"
  source { path = "api" }
}
app "web" {
  namespace   = "web"
  application = "web-app"
  depends_on  = [app.db, app.api]
  source { path = "web" }
}
`

const day2 = `
platform "shop" {
  argocd {
    namespace = "argocd"
  }
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
environment "staging" {}
environment "prod" {}
app "api" {
  namespace = "api"
  source { path = "api" }
}
`

func compileEnv(t *testing.T, src, env string) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := compiler.Compile(m, compiler.Options{Env: env})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p
}

// deployed are the Application objects the root app created from what
// platc build wrote for src in env: emit/argocd's own output.
func deployed(t *testing.T, src, env string) []runtime.Object {
	t.Helper()
	files, err := argocd.Apps{}.Emit(compileEnv(t, src, env))
	if err != nil {
		t.Fatal(err)
	}
	var out []runtime.Object
	for _, f := range files {
		if !strings.HasPrefix(f.Path, "argocd/apps/") && f.Path != "argocd/root.yaml" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := sigyaml.Unmarshal(f.Data, &u.Object); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		if env != "staging" { // the same platform's other environment, in the same namespace
			u.SetName(env + "-" + u.GetName())
		}
		out = append(out, u)
	}
	return out
}

// foreign is an Application nobody generated with platc.
func foreign() runtime.Object {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "hand-made", "namespace": "argocd"},
		"spec":     map[string]any{"project": "default"},
	}}
}

func fakeDynamic(objs ...runtime.Object) *dynfake.FakeDynamicClient {
	return dynfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		cluster.Applications: "ApplicationList", cluster.Workflows: "WorkflowList",
	}, objs...)
}

// testRun is a run of action on the day-2 platform against dc, as Run
// sets one up after Phase 0.
func testRun(t *testing.T, action config.Action, dc *dynfake.FakeDynamicClient, edit func(*config.Config)) *run {
	p := compileEnv(t, day2, "staging")
	// Timeout bounds following a workflow the test fails to complete.
	cfg := &config.Config{Action: action, Program: p, ScopeApps: p.Apps, Scope: config.Scope{Kind: config.ScopePlatform}, Timeout: 5 * time.Second}
	if edit != nil {
		edit(cfg)
	}
	r := &run{cfg: cfg, env: Env{PollInterval: time.Millisecond, Now: time.Now}, log: logging.New(testWriter{t}, logging.Options{Level: logging.Debug}), start: time.Now(),
		client: &cluster.Client{Dynamic: dc, CallTimeout: 5 * time.Second}}
	r.rep = &Report{Action: string(action), Components: []Component{}, Failures: []Failure{}, Metrics: map[string]int{}, Recommend: []string{}}
	return r
}

func day2Cluster(t *testing.T) *dynfake.FakeDynamicClient {
	objs := append(deployed(t, day1, "staging"), deployed(t, day1, "prod")...)
	return fakeDynamic(append(objs, foreign())...)
}

func TestReadRemoved(t *testing.T) {
	r := testRun(t, config.Validate, day2Cluster(t), nil)
	removed, err := r.readRemoved(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Only this environment's, only platform apps (not the root, not
	// hand-made ones), dependents first, each with what it recorded.
	want := []struct {
		app, application, volumes, timeout, deps string
	}{
		{"web", "web-app", "retain", "15m", "api,db"},
		{"db", "db", "retain", "15m", "cache"},
		{"cache", "cache", "delete", "5m", ""},
	}
	if len(removed) != len(want) {
		t.Fatalf("removed = %+v, want %d apps", removed, len(want))
	}
	for i, w := range want {
		g := removed[i]
		if g.App != w.app || g.Application != w.application || string(g.Volumes) != w.volumes ||
			ir.FormatDuration(g.Timeout) != w.timeout || strings.Join(g.DependsOn, ",") != w.deps || g.Problem != "" || g.Project != "default" {
			t.Errorf("removed[%d] = %+v, want %+v", i, g, w)
		}
	}
}

func TestRemovalOutcome(t *testing.T) {
	r := testRun(t, config.Validate, day2Cluster(t), nil)
	removed, err := r.readRemoved(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.reportRemoved(removed, removedLeft, nil)
	r.rep.Status, r.rep.Summary = verdictHealthy, "all 1 app Healthy and Synced"
	if code := r.removalOutcome(exitcode.OK, verdictDegraded); code != exitcode.Partial || r.rep.Status != verdictDegraded {
		t.Errorf("healthy with removed apps left: exit %d status %s, want %d %s", code, r.rep.Status, exitcode.Partial, verdictDegraded)
	}
	var text bytes.Buffer
	r.rep.WriteText(&text)
	for _, s := range []string{
		"3 Applications of apps removed from the platform remain: web-app, db and cache",
		"Application argocd/web-app (app web): left; depended on api, db; volumes retain, timeout 15m",
		"Application argocd/cache (app cache): left; depended on none; volumes delete, timeout 5m",
		"Run platc deploy with PRUNE=true to delete the Applications of removed apps (web-app, db and cache), dependents first",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, text.String())
		}
	}
	// A worse outcome stands; a dry run only reports.
	if code := r.removalOutcome(exitcode.Failure, verdictDegraded); code != exitcode.Failure {
		t.Errorf("unhealthy with removed apps: exit %d, want %d", code, exitcode.Failure)
	}
	r.cfg.DryRun = true
	if code := r.removalOutcome(exitcode.OK, "partial"); code != exitcode.OK {
		t.Errorf("dry run: exit %d", code)
	}
	// Nothing removed: nothing changes.
	r = testRun(t, config.Validate, fakeDynamic(deployed(t, day2, "staging")...), nil)
	removed, _ = r.readRemoved(context.Background())
	r.reportRemoved(removed, removedLeft, nil)
	if code := r.removalOutcome(exitcode.OK, verdictDegraded); code != exitcode.OK || len(removed) != 0 {
		t.Errorf("no removed apps: exit %d, removed %v", code, removed)
	}
}

// playPrune makes dc act as the workflow controller and Argo CD for the
// prune workflow: on create it records the workflow and deletes the
// Applications its tasks name, except keep; reading it back says
// Succeeded.
func playPrune(t *testing.T, dc *dynfake.FakeDynamicClient, keep string) *[]*v1alpha1.Workflow {
	var created []*v1alpha1.Workflow
	dc.PrependReactor("create", "workflows", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured).DeepCopy()
		u.SetName(u.GetGenerateName() + "x1")
		wf, err := fromUnstructured(u)
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, wf)
		if len(a.(k8stesting.CreateActionImpl).GetCreateOptions().DryRun) == 0 {
			for _, task := range wf.Spec.Templates[1].DAG.Tasks {
				if task.Name != keep {
					if err := dc.Tracker().Delete(cluster.Applications, "argocd", task.Name); err != nil {
						t.Errorf("deleting %s: %v", task.Name, err)
					}
				}
			}
		}
		return true, u, nil
	})
	dc.PrependReactor("get", "workflows", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u, err := toUnstructured(created[len(created)-1])
		if err == nil { // toUnstructured leaves the status out, as for a submission
			err = unstructured.SetNestedField(u.Object, string(v1alpha1.WorkflowSucceeded), "status", "phase")
		}
		return true, u, err
	})
	return &created
}

func TestPrune(t *testing.T) {
	dc := day2Cluster(t)
	created := playPrune(t, dc, "")
	r := testRun(t, config.Deploy, dc, func(c *config.Config) { c.Prune = true })
	removed, err := r.readRemoved(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if code := r.prune(context.Background(), removed); code != exitcode.OK {
		t.Fatalf("prune: exit %d, %s", code, r.rep.Summary)
	}
	wf := (*created)[0]
	if wf.Labels[LabelAction] != PruneAction || wf.Labels[LabelPlatform] != "shop" {
		t.Errorf("prune workflow labels %v: a later deploy would take it for a deploy", wf.Labels)
	}
	deps := map[string]string{}
	for _, task := range wf.Spec.Templates[1].DAG.Tasks {
		deps[task.Name] = task.Depends
	}
	if deps["web-app"] != "" || deps["db"] != "web-app" || deps["cache"] != "db" {
		t.Errorf("deletion order: %v, want web-app, then db, then cache", deps)
	}
	if r.rep.Metrics["pruned"] != 3 || r.leftRemoved() != nil {
		t.Errorf("pruned %d, left %v", r.rep.Metrics["pruned"], r.leftRemoved())
	}
	if after, _ := r.readRemoved(context.Background()); len(after) != 0 {
		t.Errorf("left after prune: %v", after)
	}
	if code := r.removalOutcome(exitcode.OK, "partial"); code != exitcode.OK {
		t.Errorf("all pruned, yet exit %d", code)
	}

	// One Application survives its deletion: the deploy stops there.
	dc = day2Cluster(t)
	playPrune(t, dc, "db")
	r = testRun(t, config.Deploy, dc, func(c *config.Config) { c.Prune = true })
	removed, _ = r.readRemoved(context.Background())
	if code := r.prune(context.Background(), removed); code != exitcode.Failure {
		t.Errorf("a removed app survived, yet exit %d", code)
	}
	if !strings.Contains(r.rep.Summary, "deleted 2 of the 3 removed apps; nothing else was deployed") || r.rep.RemovedApps[1].Status != removedFailed {
		t.Errorf("summary %q, removed %+v", r.rep.Summary, r.rep.RemovedApps)
	}

	// A dry run submits nothing for real, deletes nothing, says what it would.
	dc = day2Cluster(t)
	playPrune(t, dc, "") // plays the prune workflow; what it records is not needed here
	r = testRun(t, config.Deploy, dc, func(c *config.Config) { c.Prune, c.DryRun = true, true })
	removed, _ = r.readRemoved(context.Background())
	if code := r.prune(context.Background(), removed); code != exitcode.OK {
		t.Fatalf("dry run: exit %d, %s", code, r.rep.Summary)
	}
	if after, _ := r.readRemoved(context.Background()); len(after) != 3 {
		t.Errorf("a dry run deleted something: %d left", len(after))
	}
	if plan := strings.Join(r.rep.Plan, "\n"); !strings.Contains(plan, "first delete the Applications of 3 removed apps, dependents first: web-app, db, cache") ||
		!strings.Contains(plan, "volumes of cache: delete (recorded), timeout 5m") {
		t.Errorf("plan:\n%s", plan)
	}
}

// A record that cannot drive a deletion is reported as blocked, with
// how to remove it by hand, and never handed to the workflow.
func TestRemovedRecordProblems(t *testing.T) {
	objs := deployed(t, day1, "staging")
	for _, o := range objs {
		u := o.(*unstructured.Unstructured)
		if u.GetName() == "cache" {
			ann := u.GetAnnotations()
			ann[argocd.AnnotationTimeout] = "soon"
			u.SetAnnotations(ann)
		}
		if u.GetName() == "db" {
			ann := u.GetAnnotations()
			ann[argocd.AnnotationVolumes] = "snapshot" // no app of day 2 uses snapshot
			u.SetAnnotations(ann)
		}
	}
	dc := fakeDynamic(objs...)
	created := playPrune(t, dc, "")
	r := testRun(t, config.Deploy, dc, func(c *config.Config) { c.Prune = true })
	removed, _ := r.readRemoved(context.Background())
	if code := r.prune(context.Background(), removed); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, r.rep.Summary)
	}
	if tasks := (*created)[0].Spec.Templates[1].DAG.Tasks; len(tasks) != 1 || tasks[0].Name != "web-app" {
		t.Errorf("tasks %v, want only web-app", tasks)
	}
	if code := r.removalOutcome(exitcode.OK, "partial"); code != exitcode.Partial {
		t.Errorf("blocked removed apps left, yet exit %d", code)
	}
	var text bytes.Buffer
	r.rep.WriteText(&text)
	for _, s := range []string{
		`Application argocd/db (app db): blocked`, "no app of the platform uses snapshot any more",
		`Application argocd/cache (app cache): blocked`, `platc.io/teardown-timeout is "soon", not a positive duration`,
		"argocd app delete cache --cascade",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, text.String())
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
