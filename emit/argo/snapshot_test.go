package argo

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
)

// teardown { snapshot_class } reaches the snapshots step, and the
// snapshot-volume-of-class template names the class in its manifest;
// an app without one takes the default class (no field at all). Argo's
// own validation accepts the templates.
func TestSnapshotClass(t *testing.T) {
	p := source(t, `
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
app "snapshot-controller" {
  namespace = "kube-system"
  source { path = "snapshot-controller" }
}
app "db" {
  namespace = "db"
  source { path = "db" }
  teardown {
    volumes        = "snapshot"
    snapshot_class = "csi-rbd-snapclass"
  }
}
app "cache" {
  namespace = "cache"
  source { path = "cache" }
  teardown {
    volumes = "snapshot"
  }
}
`)
	wfts, cwfts := objects(t, emitFiles(t, p))
	td := wfts[TeardownTemplate]
	main := td.Spec.Templates[0]
	var apps string
	for _, ps := range main.Steps {
		for _, st := range ps.Steps {
			if st.Name == "snapshots" {
				apps = st.Arguments.Parameters[0].Value.String()
			}
		}
	}
	if !strings.Contains(apps, `{"application":"db","project":"default","volumes":"snapshot","timeout":"900","class":"csi-rbd-snapclass"}`) ||
		!strings.Contains(apps, `{"application":"cache","project":"default","volumes":"snapshot","timeout":"900"}`) {
		t.Errorf("snapshots step apps = %s", apps)
	}
	var classed, plain string
	for _, c := range cwfts {
		for _, tm := range c.Spec.Templates {
			switch tm.Name {
			case tmplSnapshotClass:
				classed = tm.Resource.Manifest
			case tmplSnapshot:
				plain = tm.Resource.Manifest
			}
		}
		if err := validate.ValidateClusterWorkflowTemplate(wfts, cwfts, c, nil, validate.ValidateOpts{Lint: true}); err != nil {
			t.Errorf("Argo refuses the ClusterWorkflowTemplate: %v", err)
		}
	}
	if !strings.Contains(classed, `volumeSnapshotClassName: '{{inputs.parameters.class}}'`) && !strings.Contains(classed, `volumeSnapshotClassName: "{{inputs.parameters.class}}"`) {
		t.Errorf("classed manifest:\n%s", classed)
	}
	if plain == "" || strings.Contains(plain, "volumeSnapshotClassName") {
		t.Errorf("default-class manifest:\n%s", plain)
	}
	if err := validate.ValidateWorkflowTemplate(wfts, cwfts, td, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo refuses the teardown template: %v", err)
	}
}

// TestScopedTeardownSnapshotChunks: a scoped teardown of a stack of
// 2,000 apps that all snapshot, with the node budget raised so that the
// budget admits it, lists more than one environment variable of a pod
// may hold (MaxParamBytes) for find-claims. The one snapshots step that
// took the whole list made checkSpot refuse the workflow; the list now
// goes in chunks of at most listChunkBytes, one snapshots-NN step each,
// all in one step group before the first deletion, and the workflow is
// admitted, Argo's own validation accepts it, and the chunks together
// list every app once. A scope still over a limit is still refused:
// the same stack under the default node budget.
func TestScopedTeardownSnapshotChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("big platform")
	}
	p := synthetic(t, synth.Options{Apps: 2000, Stacks: 1})
	for _, a := range p.Apps {
		a.Teardown.Volumes = ir.VolumesSnapshot
	}
	scope := p.Stacks[0].Apps
	// What the one step took: over what a pod's variable may hold.
	whole := 1
	for _, e := range snapshotEntries(scope) {
		whole += len(e) + 1
	}
	if whole <= MaxParamBytes {
		t.Fatalf("the whole list is %d bytes, within MaxParamBytes (%d): the test needs a larger scope", whole, MaxParamBytes)
	}

	_, err := ScopedTeardown(p, scope)
	var le *LimitError
	if !errors.As(err, &le) || !strings.Contains(le.Summary, "node budget") || strings.Contains(le.Summary, "environment variable") {
		t.Fatalf("under the default budget of %d: %v; want a LimitError over the node budget alone", p.Platform.Workflows.NodeBudget, err)
	}
	p.Platform.Workflows.NodeBudget = 100_000
	wf, err := ScopedTeardown(p, scope)
	if err != nil {
		t.Fatalf("with the budget raised: %v", err)
	}
	var snaps []wfv1.WorkflowStep
	for _, ps := range wf.Spec.Templates[0].Steps {
		if strings.HasPrefix(ps.Steps[0].Name, "snapshots") {
			snaps = ps.Steps
		}
	}
	seen := map[string]int{}
	for i, st := range snaps {
		if want := fmt.Sprintf("snapshots-%02d", i+1); st.Name != want || st.Template != tmplSnapshots {
			t.Errorf("step %d is %s calling %s, want %s calling %s", i, st.Name, st.Template, want, tmplSnapshots)
		}
		list := st.Arguments.Parameters[0].Value.String()
		if len(list) > listChunkBytes {
			t.Errorf("%s lists %d bytes, more than %d", st.Name, len(list), listChunkBytes)
		}
		var entries []snapshotEntry
		if err := json.Unmarshal([]byte(list), &entries); err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		for _, e := range entries {
			seen[e.Application]++
		}
	}
	if len(snaps) < 2 {
		t.Fatalf("%d snapshot steps, want chunks", len(snaps))
	}
	for _, a := range scope {
		if seen[a.Application] != 1 {
			t.Errorf("%s is listed %d times", a.Application, seen[a.Application])
		}
	}
	if len(seen) != len(scope) {
		t.Errorf("%d apps listed, want %d", len(seen), len(scope))
	}
	// The chunks run at once, after suspend-parents, before the apps' DAG.
	var groups []string
	for _, ps := range templateNamed(wf, tmplMain).Steps {
		groups = append(groups, ps.Steps[0].Name)
	}
	if i := slices.Index(groups, "snapshots-01"); i < 1 || groups[i-1] != "suspend-parents" || i+1 >= len(groups) || groups[i+1] != tmplApps {
		t.Errorf("step groups %v: want snapshots-01 between suspend-parents and %s", groups, tmplApps)
	}
	size, _ := objectBytes(wf)
	nodes, err := newNodeCounter(newBuilder(p).clusterTemplate()).workflow(&wf.Spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("2,000 apps: %d snapshot steps, whole list %d bytes, workflow %d bytes, %d nodes", len(snaps), whole, size, nodes)
	if err := validate.ValidateWorkflow(wftGetter{}, cwftGetter{}, roundTrip(t, wf), nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo refuses the scoped teardown: %v", err)
	}
}

// TestPruneSnapshotChunks: the prune workflow, compiled on the spot like
// a scoped teardown, chunks its snapshot list the same way: 2,000
// removed apps recorded with the snapshot policy, with the node budget
// raised, build with several snapshots-NN steps, each within
// listChunkBytes, and Argo's validation accepts the workflow.
func TestPruneSnapshotChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("big prune")
	}
	p := source(t, `
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
app "api" {
  namespace = "api"
  source { path = "api" }
}
`)
	removed := make([]Removed, 2000)
	for i := range removed {
		name := fmt.Sprintf("removed-app-%04d", i)
		removed[i] = Removed{App: name, Application: name, Project: "default", Volumes: ir.VolumesSnapshot, Timeout: 15 * time.Minute}
	}
	p.Platform.Workflows.NodeBudget = 100_000
	wf, err := Prune(p, removed)
	if err != nil {
		t.Fatal(err)
	}
	first := wf.Spec.Templates[0].Steps[0].Steps
	if len(first) < 2 {
		t.Fatalf("first step group %d steps, want snapshot chunks", len(first))
	}
	for i, st := range first {
		if want := fmt.Sprintf("snapshots-%02d", i+1); st.Name != want {
			t.Errorf("step %d is %s, want %s", i, st.Name, want)
		}
		if n := len(st.Arguments.Parameters[0].Value.String()); n > listChunkBytes {
			t.Errorf("%s lists %d bytes, more than %d", st.Name, n, listChunkBytes)
		}
	}
	if err := validate.ValidateWorkflow(wftGetter{}, cwftGetter{}, roundTrip(t, wf), nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo refuses the prune workflow: %v", err)
	}
}
