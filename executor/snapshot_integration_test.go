package executor_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/santhosh-tekuri/jsonschema/v6"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
	"github.com/platc/platc/lang"
)

// checkSchema validates b against docs/schemas/<name>.schema.json.
func checkSchema(t *testing.T, name string, b []byte) {
	t.Helper()
	path, err := filepath.Abs("../docs/schemas/" + name + ".schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s does not match its schema: %v\n%s", name, err, b)
	}
}

// argoWorkloads writes the critical components' workloads as the
// upstream charts name and label them (the application controller a
// StatefulSet), each with ready of its one replica Ready.
func (f *fixture) argoWorkloads(t *testing.T, prog *ir.Program, ready int32) {
	t.Helper()
	rels, err := ansible.Releases(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range rels {
		labels := func(component string) map[string]string {
			return map[string]string{"app.kubernetes.io/instance": rel.Name, "app.kubernetes.io/component": component}
		}
		switch rel.Role {
		case "argocd":
			f.s.Workload(t, "StatefulSet", rel.Namespace, rel.Name+"-application-controller", "quay.io/argoproj/argocd:v3.1.8", labels("application-controller"), 1, ready)
			f.s.Workload(t, "Deployment", rel.Namespace, rel.Name+"-repo-server", "quay.io/argoproj/argocd:v3.1.8", labels("repo-server"), 1, ready)
			f.s.Workload(t, "Deployment", rel.Namespace, rel.Name+"-server", "quay.io/argoproj/argocd:v3.1.8", labels("server"), 1, ready)
		case "argo-workflows":
			f.s.Workload(t, "Deployment", rel.Namespace, rel.Name+"-workflow-controller", "quay.io/argoproj/workflow-controller:v3.7.18", labels("workflow-controller"), 1, ready)
		}
	}
}

// TestSnapshot: Phase 0 writes the cluster snapshot (real kube-apiserver;
// node, workload and Application status written by the test as the
// kubelets, the controller-manager and Argo CD would), valid by its
// schema; it tells a pre-existing CRD from the bootstrap's and an app's;
// a second run with it as SNAPSHOT_BASELINE lists what changed; a bad
// baseline is a configuration error; the snapshot's reads are asked in
// Phase 0.
func TestSnapshot(t *testing.T) {
	f := newFixture(t, "snap")
	f.primitives(t)
	f.healthy(t)
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[1]ss.%[2]s
  labels: {%[3]s}
spec:
  group: %[2]s
  scope: Namespaced
  names: {plural: %[1]ss, singular: %[1]s, kind: %[4]s}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`
	f.s.Apply(t, fmt.Sprintf(crd, "widget", "snap.example.org", "", "Widget"), "pre-existing")
	f.s.Apply(t, fmt.Sprintf(crd, "cachepolicy", "snap.example.org", "app.kubernetes.io/instance: cache", "CachePolicy"), "argocd")

	dir := t.TempDir()
	first := filepath.Join(dir, "first.json")
	r := f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.SnapshotFile = first })
	expect(t, r, exitcode.OK, "healthy")
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, "snapshot", b)
	s, err := snapshot.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	owners := map[string]string{}
	for _, c := range s.CRDs {
		owners[c.Name] = c.Owner + " " + c.OwnedBy
	}
	for name, want := range map[string]string{
		"widgets.snap.example.org":      "none ",
		"cachepolicys.snap.example.org": "app cache",
		"applications.argoproj.io":      "bootstrap argocd",
		"workflows.argoproj.io":         "bootstrap argo-workflows",
	} {
		if owners[name] != want {
			t.Errorf("CRD %s: owner %q, want %q", name, owners[name], want)
		}
	}
	if !slices.Contains(s.Namespaces, f.argocd) || len(s.Nodes) < 4 || s.KubernetesVersion == "" {
		t.Errorf("snapshot lacks the namespaces, nodes or version: %s", b)
	}
	if len(s.Applications) != 3 || s.Applications[0].App != "api" || s.Applications[0].Health != "Healthy" {
		t.Errorf("applications: %+v", s.Applications)
	}
	if len(s.Components) != 4 {
		t.Errorf("components: %+v", s.Components)
	}
	for _, w := range s.Components {
		if w.Status != "ready" || w.Version == "" {
			t.Errorf("component %+v: want ready with a version", w)
		}
	}
	pre := fmt.Sprint(r.report["snapshot"].(map[string]any)["pre_existing_crds"])
	if !strings.Contains(pre, "widgets.snap.example.org") || strings.Contains(pre, "argoproj.io") || strings.Contains(pre, "cachepolicys") {
		t.Errorf("pre_existing_crds = %s", pre)
	}

	// Unchanged, a second snapshot is the same but for when it was taken.
	again := filepath.Join(dir, "again.json")
	f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.SnapshotFile = again })
	b2, _ := os.ReadFile(again)
	re := regexp.MustCompile(`"taken_at": "[^"]*"`)
	if !bytes.Equal(re.ReplaceAll(b, nil), re.ReplaceAll(b2, nil)) {
		t.Errorf("two snapshots of an unchanged cluster differ:\n%s\n%s", b, b2)
	}

	// Changes since the baseline: a namespace, a CRD, a node's taint, an
	// Application's health and revision.
	f.s.Namespace(t, "snap-new")
	f.s.Apply(t, fmt.Sprintf(crd, "gadget", "snap.example.org", "", "Gadget"), "pre-existing")
	kc, _ := f.s.Clients(t)
	node, err := kc.CoreV1().Nodes().Get(context.Background(), "node-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	taints := node.Spec.Taints
	node.Spec.Taints = append(slices.Clone(taints), corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoSchedule})
	if _, err := kc.CoreV1().Nodes().Update(context.Background(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		node, _ := kc.CoreV1().Nodes().Get(context.Background(), "node-1", metav1.GetOptions{})
		node.Spec.Taints = taints
		_, _ = kc.CoreV1().Nodes().Update(context.Background(), node, metav1.UpdateOptions{})
	}()
	f.s.Application(t, f.argocd, "db", "Degraded", "Synced")
	r = f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.SnapshotBaseline = first })
	expect(t, r, exitcode.Partial, "degraded")
	var lines []string
	for _, c := range r.report["changes_since_baseline"].([]any) {
		m := c.(map[string]any)
		detail, _ := m["detail"].(string)
		lines = append(lines, snapshot.Change{Kind: m["kind"].(string), Name: m["name"].(string), Change: m["change"].(string), Detail: detail}.Text())
	}
	changes := strings.Join(lines, "\n")
	contains(t, "changes", changes, "namespace snap-new added", "crd gadgets.snap.example.org added: versions v1, owner none",
		"node node-1 changed: taints node.kubernetes.io/not-ready:NoSchedule → maintenance:NoSchedule,node.kubernetes.io/not-ready:NoSchedule\n", "application db changed: health Healthy → Degraded")
	if strings.Contains(changes, "widgets") {
		t.Errorf("an unchanged CRD is listed as a change: %s", changes)
	}

	// A bad baseline stops the run before anything is read: exit 3.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"format\": \"platc.snapshot/v1\",\n  \"nodes\": 3\n}\n"), 0o644)
	for path, want := range map[string]string{
		bad:                               "SNAPSHOT_BASELINE " + bad + ": line 3, column 12: json: cannot unmarshal number into Go struct field Snapshot.nodes",
		filepath.Join(dir, "absent.json"): "no such file",
		dir:                               "not a regular file",
	} {
		r = f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.SnapshotBaseline = path })
		if r.code != exitcode.Invalid {
			t.Errorf("baseline %s: exit %d, want %d", path, r.code, exitcode.Invalid)
		}
		contains(t, "problems", r.logs, want)
	}
	r = f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.SnapshotFile = filepath.Join(dir, "no", "s.json") })
	contains(t, "problems", r.logs, "SNAPSHOT_FILE", "does not exist")

	// The deployer may not list CRDs or namespaces: Phase 0 says so
	// before anything else runs.
	grantDeployer(t, f.s)
	r = f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.SnapshotFile = filepath.Join(dir, "d.json"); in.DryRun = "true" })
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "list customresourcedefinitions.apiextensions.k8s.io (cluster-wide) (for the cluster snapshot")
}

// TestValidateCriticalComponents: validate reads the Ready replicas of
// the Argo components' workloads; one not ready, or missing, makes a
// healthy platform degraded (exit 2), named in the report.
func TestValidateCriticalComponents(t *testing.T) {
	f := newFixture(t, "crit")
	f.primitives(t)
	f.healthy(t)
	r := f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "healthy")
	crit := fmt.Sprint(r.report["critical_components"])
	contains(t, "critical components", crit, "argocd-application-controller", "StatefulSet", "argocd-repo-server", "argocd-server", "workflow-controller", "v3.7.18")

	mod, _ := lang.Parse(f.dir)
	prog, _ := compiler.Compile(mod, compiler.Options{Env: "staging"})
	f.argoWorkloads(t, prog, 0)
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "summary", fmt.Sprint(r.report["summary"]), "4 critical components not ready: argocd-application-controller (not-ready)")
	contains(t, "logs", r.logs, "0 of 1 replicas Ready")

	kc, _ := f.s.Clients(t)
	if err := kc.AppsV1().StatefulSets(f.argocd).Delete(context.Background(), "argocd-application-controller", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.argoWorkloads(t, prog, 1)
	if err := kc.AppsV1().StatefulSets(f.argocd).Delete(context.Background(), "argocd-application-controller", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "summary", fmt.Sprint(r.report["summary"]), "1 critical component not ready: argocd-application-controller (missing)")
}

// TestSnapshotReadsOnce: the snapshot lists neither the nodes nor the
// Applications again: it takes Phase 0's nodes, and validate and a
// deploy with nothing to do judge the apps by the Applications it
// listed. Counted by a real kube-apiserver's apiserver_request_total, a
// run with SNAPSHOT_FILE makes as many LISTs of each as one without.
func TestSnapshotReadsOnce(t *testing.T) {
	f := newFixture(t, "once")
	f.primitives(t)
	f.healthy(t)
	kc, _ := f.s.Clients(t)
	lists := func(resource string) int {
		t.Helper()
		b, err := kc.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range fams["apiserver_request_total"].GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["verb"] == "LIST" && l["resource"] == resource {
				n += int(m.GetCounter().GetValue())
			}
		}
		return n
	}
	for _, action := range []config.Action{config.Validate, config.Deploy} {
		count := func(file string) (nodes, apps int) {
			t.Helper()
			n0, a0 := lists("nodes"), lists("applications")
			r := f.run(t, action, testenv.AdminToken, func(in *config.Input) { in.SnapshotFile = file })
			if r.code != exitcode.OK {
				t.Fatalf("%s: exit %d\n%s", action, r.code, r.logs)
			}
			return lists("nodes") - n0, lists("applications") - a0
		}
		nodes, apps := count("")
		file := filepath.Join(t.TempDir(), "s.json")
		snapNodes, snapApps := count(file)
		if snapNodes != nodes || snapApps != apps {
			t.Errorf("%s lists the nodes %d times and the Applications %d times without a snapshot, %d and %d with one", action, nodes, apps, snapNodes, snapApps)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := snapshot.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Nodes) < 4 || len(s.Applications) != 3 {
			t.Errorf("%s: the snapshot holds %d nodes and %d Applications", action, len(s.Nodes), len(s.Applications))
		}
		t.Logf("%s: %d LISTs of nodes, %d of Applications, with or without a snapshot", action, nodes, apps)
	}
}
