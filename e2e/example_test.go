package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/santhosh-tekuri/jsonschema/v6"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/snapshot"
)

// RFC 2.5 #1 on the RFC's own platform: from an empty cluster (with Argo
// CD and Argo Workflows bootstrapped), platc deploy deploys all 43 apps
// in dependency order, each Healthy before its dependents start; a
// second deploy changes nothing; validate says healthy; teardown removes
// everything in reverse order under each app's volume policy, and a
// second teardown finds nothing to do.
func TestExample(t *testing.T) {
	s := start(t, "../examples")
	p := s.pl.Program

	// RFC 7.5: the trace context reaches the logs, the Workflow and, as
	// a W3C traceparent naming the executor's span, every step pod.
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	metrics := filepath.Join(t.TempDir(), "platc-deploy.prom")
	// RFC 6.1: Phase 0's cluster snapshot, before anything is deployed.
	snaps := t.TempDir()
	before := filepath.Join(snaps, "before.json")
	r := s.run("deploy", ExitOK, "TRACE_ID="+traceID, "SPAN_ID=00f067aa0ba902b7", "METRICS_FILE="+metrics, "SNAPSHOT_FILE="+before)
	s.settle()
	s.wantConverged()
	wantIn(t, "logs", string(r.Logs), `"trace_id":"`+traceID+`"`, `"component":"harbor","message":"succeeded in`, "progress: 43 of 43 apps done")
	if wfs := s.workflowList(); len(wfs) != 1 || wfs[0].GetAnnotations()["platc.io/trace-id"] != traceID {
		t.Errorf("the deploy Workflow does not carry the trace id")
	} else {
		tp := wfs[0].GetAnnotations()["platc.io/traceparent"]
		if got := s.pl.steps.Traceparents(); len(got) != 1 || got[tp] == 0 || !strings.HasPrefix(tp, "00-"+traceID+"-") {
			t.Errorf("the step pods ran with TRACEPARENT %v, want only the Workflow's %q", got, tp)
		}
	}
	wantMetrics(t, metrics, len(p.Apps))
	wantParity(t, s)
	// RFC 3.2.5: Phase 0 reached the platform repository with git and
	// every chart repository, through the simulated internet.
	wantIn(t, "logs", string(r.Logs), `"component":"reach-git","message":"`+p.Platform.Git.RepoURL+` (for the platform repository`, `reachable (git ls-remote)"`)
	if strings.Contains(string(r.Logs), `"component":"reach-`) && strings.Contains(string(r.Logs), `"level":"warn","action":"deploy","phase":"preflight","component":"reach-`) {
		t.Errorf("a connectivity check warned:\n%s", r.LastLog(80))
	}
	deployed := s.pl.Timeline.Events()
	wantNone(t, "INV-1: dependency order", CheckDeployOrder(s.pl.Declared, deployed))
	if got := s.started(deployed); len(got) != len(p.Apps) {
		t.Errorf("%d of %d apps had a sync operation", len(got), len(p.Apps))
	}

	t.Run("idempotent", func(t *testing.T) {
		// INV-6: on a converged platform, deploy submits no Workflow and
		// starts no sync operation.
		mark, before := s.pl.Timeline.Mark(), s.workflows()
		r := s.run("deploy", ExitOK)
		wantIn(t, "report", string(r.Report), "already Synced and Healthy; nothing changed")
		s.settle()
		if after := s.workflows(); after != before {
			t.Errorf("deploy on a converged platform made %d new Workflows", after-before)
		}
		wantNone(t, "sync operations on a converged platform", s.started(s.pl.Timeline.Since(mark)))
	})

	t.Run("validate healthy", func(t *testing.T) {
		after := filepath.Join(snaps, "after.json")
		r := s.run("validate", ExitOK, "SNAPSHOT_FILE="+after, "SNAPSHOT_BASELINE="+before)
		wantSnapshot(t, s, after, string(r.Report))
		// RFC 7.2: health aggregated per stack and for the platform, and
		// the invariants the live cluster shows. The real Argo CD recorded
		// platc's syncs, not its automated sync, as every app's first, and
		// ran no hook the platform does not declare.
		wantIn(t, "report", string(r.Report), `"health":"Healthy","stacks":[{"stack":"application-infrastructure","health":"Healthy"`, `{"stack":"security","health":"Healthy","apps":{"Healthy":9}}`,
			`{"invariant":"INV-2","check":"no Application was first synced by automated sync rather than by platc","status":"pass"}`,
			`{"invariant":"INV-7","check":"Argo CD's health customizations are the compiled ones","status":"pass"}`,
			`{"invariant":"INV-8","check":"every hook Argo CD ran or keeps is one the platform declares","status":"pass"}`)
	})

	t.Run("teardown refused without confirmation", func(t *testing.T) {
		r := s.run("teardown", ExitInvalid)
		wantIn(t, "logs", string(r.Logs), `confirm by setting TEARDOWN_CONFIRM to the platform name \"acme\"`)
	})

	t.Run("teardown dry run", func(t *testing.T) {
		before := s.workflows()
		r := s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name, "DRY_RUN=true")
		wantIn(t, "report", string(r.Report), "remove, dependents first: ", "volumes of ceph-cluster: snapshot", "the API server accepted it in a server-side dry run")
		if s.workflows() != before {
			t.Error("a dry run submitted a Workflow")
		}
	})

	t.Run("teardown", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name)
		s.settle()
		evs := s.pl.Timeline.Since(mark)
		wantNone(t, "INV-5: reverse order", CheckTeardownOrder(s.pl.Declared, evs))
		if left := s.apps(); len(left) > 0 {
			t.Errorf("%d Applications left after teardown", len(left))
		}
		s.wantVolumes(nil)
	})

	t.Run("teardown again", func(t *testing.T) {
		before := s.workflows()
		s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name)
		if s.workflows() != before {
			t.Error("a teardown of a removed platform submitted a Workflow")
		}
	})

	t.Run("validate after teardown", func(t *testing.T) {
		// No Application at all is unhealthy.
		r := s.run("validate", ExitFailure)
		wantIn(t, "report", string(r.Report), "the Application does not exist")
	})
}

// wantSnapshot checks validate's snapshot of the deployed example (RFC
// 6.1, 7.2): valid by its schema; the critical components, run by the
// process kubelet (Argo CD, the workflow controller) and kwok (Argo
// Events' controller), Ready with the versions the charts install; the
// CRDs the bootstrap's charts installed owned by their releases, and the
// simulated operators' CRDs, which the environment installs before any
// deploy, pre-existing; every app's Application Synced and Healthy; and
// the changes since the snapshot the deploy took first: the apps'
// namespaces added and their Applications changed.
func wantSnapshot(t *testing.T, s *scenario, file, report string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	sch, err := c.Compile("../docs/schemas/snapshot.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the snapshot does not match its schema: %v", err)
	}
	snap, err := snapshot.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var comps []string
	for _, w := range snap.Components {
		comps = append(comps, w.Component)
		if w.Status != snapshot.Ready || w.Version == "" {
			t.Errorf("critical component %+v is not ready with a version", w)
		}
	}
	if want := []string{"argo-events-controller", "workflow-controller", "argocd-application-controller", "argocd-repo-server", "argocd-server"}; !sameSet(comps, want) {
		t.Errorf("critical components %v, want %v", comps, want)
	}
	owners := map[string]string{}
	for _, c := range snap.CRDs {
		owners[c.Name] = strings.TrimSpace(c.Owner + " " + c.OwnedBy)
	}
	for name, want := range map[string]string{
		"applications.argoproj.io": "bootstrap argocd", "workflows.argoproj.io": "bootstrap argo-workflows",
		"sensors.argoproj.io": "bootstrap argo-events", "volumesnapshots.snapshot.storage.k8s.io": "none",
	} {
		if owners[name] != want {
			t.Errorf("CRD %s: owner %q, want %q", name, owners[name], want)
		}
	}
	if len(snap.Applications) != len(s.pl.Program.Apps) {
		t.Errorf("%d Applications in the snapshot, want %d", len(snap.Applications), len(s.pl.Program.Apps))
	}
	for _, a := range snap.Applications {
		if a.Sync != "Synced" || a.Health != "Healthy" || a.Revision == "" {
			t.Errorf("Application %+v: want Synced, Healthy, with a revision", a)
		}
	}
	wantIn(t, "report", report, `"critical_components":[`, `"pre_existing_crds":[`, `"volumesnapshots.snapshot.storage.k8s.io"`,
		`"changes_since_baseline":[`, `{"kind":"namespace","name":"harbor","change":"added"}`, `{"kind":"application","name":"harbor","change":"`)
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Exit codes of RFC 7.1 (executor.ExitOK and so on), as the scenarios
// expect them.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitPartial = 2
	ExitInvalid = 3
)

// wantVolumes checks, after a teardown, what each app that holds data
// kept: under retain its claim is still there; under delete and snapshot
// it is gone; under snapshot a VolumeSnapshot of it exists. override is
// PV_POLICY, or nil for each app's own policy.
// Each app's own policy is read from the generated teardown template,
// not from the IR.
func (s *scenario) wantVolumes(override *ir.VolumePolicy) {
	s.t.Helper()
	policies, err := ReadVolumePolicies(s.pl.Generated)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, a := range s.pl.Program.Apps {
		if !holdsData(a) {
			continue
		}
		own, ok := policies[a.Application]
		if !ok {
			s.t.Errorf("%s holds data but has no task in the generated teardown", a.Name)
			continue
		}
		policy := ir.VolumePolicy(own)
		if !slices.Contains([]ir.VolumePolicy{ir.VolumesRetain, ir.VolumesDelete, ir.VolumesSnapshot}, policy) {
			s.t.Errorf("%s: the generated teardown gives it volume policy %q", a.Name, own)
		}
		if override != nil {
			policy = *override
		}
		_, err := s.env.Kube.CoreV1().PersistentVolumeClaims(a.Namespace).Get(s.ctx, claimName(a), metav1.GetOptions{})
		kept := err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			s.t.Fatal(err)
		}
		switch policy {
		case ir.VolumesRetain:
			if !kept {
				s.t.Errorf("%s: volume policy retain, but its claim is gone", a.Name)
			}
		default:
			if kept {
				s.t.Errorf("%s: volume policy %s, but its claim is still there", a.Name, policy)
			}
		}
		if policy == ir.VolumesSnapshot {
			snaps, err := s.env.Dynamic.Resource(volumeSnapshotGVR).Namespace(a.Namespace).List(s.ctx, metav1.ListOptions{})
			if err != nil {
				s.t.Fatal(err)
			}
			found := false
			for _, sn := range snaps.Items {
				found = found || sn.GetAnnotations()["platc.io/application"] == a.Application
			}
			if !found {
				s.t.Errorf("%s: volume policy snapshot, but no VolumeSnapshot of its claim", a.Name)
			}
		}
	}
}

// wantMetrics parses the deploy's metrics file with Prometheus' own
// parser: a succeeded deploy with every app Healthy.
func wantMetrics(t *testing.T, file string, apps int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Errorf("METRICS_FILE: %v", err)
		return
	}
	defer f.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(f)
	if err != nil {
		t.Errorf("METRICS_FILE does not parse: %v", err)
		return
	}
	healthy, succeeded := 0, false
	for _, m := range mfs["executor_component_health"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "health" && l.GetValue() == "Healthy" && m.GetGauge().GetValue() == 1 {
				healthy++
			}
		}
	}
	for _, m := range mfs["executor_action_status"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "status" && l.GetValue() == "succeeded" {
				succeeded = m.GetGauge().GetValue() == 1
			}
		}
	}
	if healthy != apps || !succeeded {
		t.Errorf("METRICS_FILE: %d of %d apps Healthy, status succeeded %v", healthy, apps, succeeded)
	}
}

// wantParity checks issue 22's shapes on the live Applications: grafana
// was compared with both its sources, the chart and the platform
// repository its values file comes from, at the published revision (so
// Argo CD read the values file the e2e served), and prometheus carries
// its ignore_differences.
func wantParity(t *testing.T, s *scenario) {
	t.Helper()
	apps := s.apps()
	g, ok := apps["grafana"]
	if !ok {
		t.Fatal("grafana has no Application")
	}
	srcs, _, _ := unstructured.NestedSlice(g.Object, "status", "sync", "comparedTo", "sources")
	revs, _, _ := unstructured.NestedStringSlice(g.Object, "status", "sync", "revisions")
	if len(srcs) != 2 || !slices.Contains(revs, s.pl.Revision) {
		t.Errorf("grafana was compared with %d sources at revisions %v, want its chart and the platform repository at %s", len(srcs), revs, s.pl.Revision)
	} else if ref, _, _ := unstructured.NestedString(srcs[1].(map[string]any), "ref"); ref != "values" {
		t.Errorf("grafana's second source has ref %q, want values", ref)
	}
	ign, _, _ := unstructured.NestedSlice(apps["prometheus"].Object, "spec", "ignoreDifferences")
	if len(ign) != 2 {
		t.Errorf("prometheus has %d ignoreDifferences entries, want 2", len(ign))
	}
}
