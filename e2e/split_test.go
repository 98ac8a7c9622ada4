package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/platc/platc/emit/argocd"
)

// A workflow of workflows on the real controller (docs/workflows.md): the
// shop with a node budget of 20, so deploy is a parent of three child
// workflows ({cache, metrics}, {network, database}, {api, web} after
// {network, database}) and teardown a parent of four: one snapshot child,
// which takes every snapshot before the first deletion, and three
// children of two apps. With database
// failing, its child fails, the parent fails and omits only the child
// that waits for it: api and web never sync, cache and metrics converge.
// The executor reports every app from the children. Once database
// recovers, a second deploy completes, skipping the converged apps and
// api's wait for database's Database, already Healthy, and the
// teardown, split too, is the exact reverse.
//
// The Applications are split too: at one Application per root
// (argocd.applications_per_root = 1) the root holds six group roots,
// platc-root-base and platc-root-base.2 and so on, each the app-of-apps
// of one app's Application, which the real Argo CD syncs. Teardown
// switches their automated sync off with the root's, and the deploy
// after it restores them, and they re-create the Applications.
func TestWorkflowOfWorkflows(t *testing.T) {
	dir := shopWith(t, `    parallelism     = 4`, "    parallelism     = 4\n    node_budget     = 20",
		`    project   = "shop"`, "    project   = \"shop\"\n    applications_per_root = 1")
	s := start(t, dir, "database")
	p := s.pl.Program
	if p.Platform.Workflows.NodeBudget != 20 {
		t.Fatalf("node budget %d, want 20", p.Platform.Workflows.NodeBudget)
	}
	groups := argocd.GroupRoots(p)
	if len(groups) != 6 {
		t.Fatalf("group roots %v, want one per app", groups)
	}
	s.wantGroupRootsHold(groups)

	r := s.run("deploy", ExitPartial)
	wantIn(t, "report", string(r.Report), `"app":"database"`, `"app":"web"`, "not run: database did not succeed", "not run: database and api did not succeed")
	if strings.Contains(string(r.Report), `"step":"deploy-02"`) {
		t.Errorf("the failed child is reported as a failed step besides its app:\n%s", r.Report)
	}
	s.settle()
	wantSame(t, "apps synced by the failed deploy", s.started(s.pl.Timeline.Events()), []string{"cache", "database", "metrics", "network"})
	wantNone(t, "INV-1: dependency order", CheckDeployOrder(s.pl.Declared, s.pl.Timeline.Events()))
	s.wantConverged("network", "cache", "metrics")

	parent, children := s.workflowTree("deploy")
	if phase := workflowPhase(parent); phase != "Failed" {
		t.Errorf("deploy parent %s is %s, want Failed", parent.GetName(), phase)
	}
	phases := map[string]string{}
	for _, c := range children {
		// generateName is <parent>-<child template>-
		tmpl := strings.TrimPrefix(c.GetGenerateName(), parent.GetName()+"-")
		phases[strings.TrimSuffix(tmpl, "-")] = workflowPhase(&c)
		owners := c.GetOwnerReferences()
		if len(owners) != 1 || owners[0].UID != parent.GetUID() {
			t.Errorf("child %s is owned by %v, want the parent", c.GetName(), owners)
		}
	}
	want := map[string]string{"deploy-01": "Succeeded", "deploy-02": "Failed"}
	if len(phases) != len(want) || phases["deploy-01"] != want["deploy-01"] || phases["deploy-02"] != want["deploy-02"] {
		t.Errorf("child workflows %v, want %v (deploy-03, after the failed deploy-02, never created)", phases, want)
	}

	t.Run("resume", func(t *testing.T) {
		if err := s.pl.Fix(s.ctx, []string{"database"}); err != nil {
			t.Fatal(err)
		}
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitOK)
		s.settle()
		wantSame(t, "apps synced by the resumed deploy", s.started(s.pl.Timeline.Since(mark)), []string{"api", "web"})
		wantNone(t, "INV-1: dependency order", CheckDeployOrder(s.pl.Declared, s.pl.Timeline.Events()))
		s.wantConverged()
		// Every app of deploy-01 and deploy-02 had nothing to do
		// (database turned Healthy at its synced revision): the real
		// controller skipped both children without creating them, and
		// ran a pod for api, web and api's resource wait only.
		parent, children := s.workflowTree("deploy")
		phases, pods := workflowNodes(parent)
		if phases["deploy-01"] != "Skipped" || phases["deploy-02"] != "Skipped" || phases["deploy-03"] != "Succeeded" {
			t.Errorf("resumed parent's child tasks %v, want deploy-01 and deploy-02 Skipped, deploy-03 Succeeded", phases)
		}
		if pods != 1 {
			t.Errorf("resumed parent ran %d pods, want 1 (deploy-03's)", pods)
		}
		if len(children) != 1 || !strings.HasSuffix(children[0].GetGenerateName(), "-deploy-03-") {
			var names []string
			for _, c := range children {
				names = append(names, c.GetName())
			}
			t.Fatalf("resume created child workflows %v, want deploy-03's only", names)
		}
		// database converged and its Database is Healthy: api's wait
		// for it was skipped too (it ran a pod before issue 23's fix).
		phases, pods = workflowNodes(&children[0])
		if pods != 2 || phases["api"] != "Succeeded" || phases["web"] != "Succeeded" || phases["wait-database-primary"] != "Skipped" {
			t.Errorf("deploy-03 ran %d pods, tasks %v; want api and web one pod each, wait-database-primary Skipped", pods, phases)
		}
		wantIn(t, "report", string(r.Report), `"app":"cache","application":"cache","status":"skipped"`, "already Synced and Healthy: skipped, no pod ran", `"skipped":4,"succeeded":2`)
	})

	t.Run("teardown", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name)
		s.settle()
		wantNone(t, "INV-5: reverse order", CheckTeardownOrder(s.pl.Declared, s.pl.Timeline.Since(mark)))
		if left := s.apps(); len(left) > 0 {
			t.Errorf("%d Applications left after teardown", len(left))
		}
		_, children := s.workflowTree("teardown")
		snapshots := 0
		for _, c := range children {
			if strings.Contains(c.GetGenerateName(), "-teardown-snapshots-") {
				snapshots++
			}
			if phase := workflowPhase(&c); phase != "Succeeded" {
				t.Errorf("teardown child %s is %s, want Succeeded", c.GetName(), phase)
			}
		}
		if len(children) != 4 || snapshots != 1 {
			t.Errorf("teardown ran %d child workflows (%d of snapshots), want 4 (1)", len(children), snapshots)
		}
		for _, g := range append([]string{argocd.RootApp}, groups...) {
			if s.automated(g) {
				t.Errorf("Application %s syncs automatically after the teardown", g)
			}
		}
	})

	t.Run("redeploy", func(t *testing.T) {
		s.reuseReleasedVolumes()
		r := s.run("deploy", ExitOK)
		for _, g := range append([]string{argocd.RootApp}, groups...) {
			wantIn(t, "report", string(r.Report), "Application "+p.Platform.ArgoCD.Namespace+"/"+g+": automated sync restored")
			if !s.automated(g) {
				t.Errorf("Application %s does not sync automatically after the deploy", g)
			}
		}
		s.settle()
		s.wantConverged()
		s.wantGroupRootsHold(groups)
	})
}

// reuseReleasedVolumes makes the volumes of the claims a teardown
// deleted (api's delete and database's snapshot policy) bindable again,
// as an administrator does to reuse a Retain volume: the simulated
// storage is static volumes, each pre-bound to its claim's name, and the
// PV controller keeps a Released volume for the deleted claim's UID. A
// real cluster's provisioner would give the new claims new volumes.
func (s *scenario) reuseReleasedVolumes() {
	s.t.Helper()
	pvs, err := s.env.Kube.CoreV1().PersistentVolumes().List(s.ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	for _, pv := range pvs.Items {
		if pv.Status.Phase != corev1.VolumeReleased {
			continue
		}
		patch := []byte(`[{"op":"remove","path":"/spec/claimRef/uid"},{"op":"remove","path":"/spec/claimRef/resourceVersion"}]`)
		if _, err := s.env.Kube.CoreV1().PersistentVolumes().Patch(s.ctx, pv.Name, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			s.t.Fatalf("making volume %s bindable again: %v", pv.Name, err)
		}
	}
}

// wantGroupRootsHold checks, against Argo CD's own record, that the root
// holds each group root and each group root exactly the Applications of
// its directory in the generated tree.
func (s *scenario) wantGroupRootsHold(groups []string) {
	s.t.Helper()
	ns := s.pl.Program.Platform.ArgoCD.Namespace
	held := func(name string) []string {
		u, err := s.env.Dynamic.Resource(applicationGVR).Namespace(ns).Get(s.ctx, name, metav1.GetOptions{})
		if err != nil {
			s.t.Fatal(err)
		}
		res, _, _ := unstructured.NestedSlice(u.Object, "status", "resources")
		var out []string
		for _, r := range res {
			m, _ := r.(map[string]any)
			if m["kind"] == "Application" {
				out = append(out, fmt.Sprint(m["name"]))
			}
		}
		slices.Sort(out)
		return out
	}
	inRoot := held(argocd.RootApp)
	for _, g := range groups {
		if !slices.Contains(inRoot, g) {
			s.t.Errorf("the root holds %v, not group root %s", inRoot, g)
		}
		files, err := filepath.Glob(filepath.Join(s.pl.Generated, "argocd", "apps", g, "*.yaml"))
		if err != nil || len(files) == 0 {
			s.t.Fatalf("no Applications in group root %s's directory (%v)", g, err)
		}
		var want []string
		for _, f := range files {
			want = append(want, strings.TrimSuffix(filepath.Base(f), ".yaml"))
		}
		slices.Sort(want)
		wantSame(s.t, "Applications of group root "+g, held(g), want)
	}
}

// workflowTree is the latest Workflow labelled platc.io/workflow=action
// and the Workflows it created (labelled with its name).
func (s *scenario) workflowTree(action string) (*unstructured.Unstructured, []unstructured.Unstructured) {
	s.t.Helper()
	all := s.workflowList()
	var parent *unstructured.Unstructured
	for i := range all {
		w := &all[i]
		if w.GetLabels()["platc.io/workflow"] != action {
			continue
		}
		if parent == nil {
			parent = w
			continue
		}
		wt, pt := w.GetCreationTimestamp(), parent.GetCreationTimestamp()
		if wt.After(pt.Time) || (wt.Equal(&pt) && w.GetName() > parent.GetName()) {
			parent = w
		}
	}
	if parent == nil {
		s.t.Fatalf("no %s workflow", action)
	}
	var children []unstructured.Unstructured
	for _, w := range all {
		if w.GetLabels()["platc.io/parent-workflow"] == parent.GetName() {
			children = append(children, w)
		}
	}
	slices.SortFunc(children, func(a, b unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	return parent, children
}

// workflowNodes are the phases of w's task nodes by name (a task's own
// node, not its attempts) and the number of its Pod nodes: the pods the
// controller ran.
func workflowNodes(w *unstructured.Unstructured) (map[string]string, int) {
	nodes, _, _ := unstructured.NestedMap(w.Object, "status", "nodes")
	phases, pods := map[string]string{}, 0
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		typ, _ := m["type"].(string)
		name, _ := m["displayName"].(string)
		phase, _ := m["phase"].(string)
		switch {
		case typ == "Pod":
			pods++
			if _, own := phases[name]; !own {
				phases[name] = phase // a task without a Retry node
			}
		case typ != "DAG" && typ != "Steps" && typ != "StepGroup":
			phases[name] = phase
		}
	}
	return phases, pods
}

func workflowPhase(w *unstructured.Unstructured) string {
	phase, _, _ := unstructured.NestedString(w.Object, "status", "phase")
	return phase
}
