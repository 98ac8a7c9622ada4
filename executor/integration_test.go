package executor_test

// Integration tests against a real kube-apiserver and etcd (package
// testenv). Everything platc does goes through the API server. What Argo's
// controllers, kubelets and an earlier install would have written (node
// and pod status, WorkflowTemplates, Workflow status and nodes,
// Application status) is written by the tests through testenv's fixture
// helpers, each object labelled platc.io/test-fixture.
//
// Deploy, resume, validate, scoped runs and teardown run on the real
// Argo Workflows controller and Argo CD in e2e/ (make e2e). What stays
// here are the states the real system cannot be driven into on demand:
// a workflow the controller has not picked up, a workflow that ran past
// its own deadline, a run the Argo Events sensor started (no Argo Events
// controller runs in e2e), a platform source edited without a rebuild,
// an Application whose target moved before Argo CD compared it again;
// and the checks that need no controller at all (Phase 0, dry runs, the
// bootstrap decision, the environment file).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
	"github.com/platc/platc/lang"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Stop()
	os.Exit(code)
}

// fixture is one test's platform: its own namespaces on the shared API
// server, so tests do not see each other's objects.
type fixture struct {
	s          *testenv.Server
	name       string
	argocd, wf string
	dir        string
	tools      string
	apps       []string
	logs       syncBuf // the running action's log, for tests to wait on
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuf) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

// waitLog waits until the running action has logged text.
func (f *fixture) waitLog(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(f.logs.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the executor never logged %q:\n%s", text, f.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func newFixture(t *testing.T, name string) *fixture {
	s := testenv.Require(t)
	f := &fixture{s: s, name: name, argocd: "argocd-" + name, wf: "argo-" + name, dir: t.TempDir(), tools: toolsDir(t, nil), apps: []string{"db", "cache", "api"}}
	hcl := fmt.Sprintf(`
platform %q {
  argocd {
    namespace = %q
  }
  workflows {
    namespace = %q
  }
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1"
  }
}

environment "staging" {
  domain = "staging.example.com"
}

stack "data" {
  app "db" {
    namespace = "data-%[1]s"
    source { path = "apps/db" }
  }
  app "cache" {
    namespace = "data-%[1]s"
    source { path = "apps/cache" }
  }
}

app "api" {
  namespace  = "api-%[1]s"
  depends_on = [stack.data]
  source { path = "apps/api" }
}
`, name, f.argocd, f.wf)
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	s.ClusterNodes(t, 3)
	return f
}

// primitives installs what a bootstrapped cluster has: the Argo
// namespaces, and the workflows platc build generates for this platform
// (generated/<env>/workflows/), applied through the API as Argo CD would
// sync them, so the real templates meet the real CRD schemas.
func (f *fixture) primitives(t *testing.T) {
	f.s.Namespace(t, f.argocd)
	f.s.Namespace(t, f.wf)
	mod, diags := lang.Parse(f.dir)
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: "staging"})
	if prog == nil {
		t.Fatal(append(diags, cdiags...))
	}
	files, err := argo.Emitter{}.Emit(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		for _, doc := range strings.Split(string(file.Data), "\n---\n") {
			f.s.Apply(t, doc, "platc-build-output")
		}
	}
	f.bootstrapObjects(t, prog)
}

// bootstrapObjects installs what the bootstrap installs for prog and the
// executor compares: argocd-cm and argocd-rbac-cm as the argo-cd release
// renders the chart values platc generates, the AppProjects and the root
// Application as emit/argocd writes them, and the token Secret. No Helm
// release records: this Argo CD is not the bootstrap's (helmrelease_
// integration_test.go adds them).
func (f *fixture) bootstrapObjects(t *testing.T, prog *ir.Program) {
	t.Helper()
	f.argocdConfig(t, prog)
	f.argoWorkloads(t, prog, 1)
	files, err := argocd.Apps{}.Emit(prog)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if file.Path != "argocd/root.yaml" && file.Path != "argocd/projects.yaml" {
			continue
		}
		for _, doc := range strings.Split(string(file.Data), "\n---\n") {
			f.s.Apply(t, doc, "platc-bootstrap")
		}
	}
	ts := prog.Platform.ArgoCD.TokenSecret
	f.s.Apply(t, fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: %s}\nstringData: {%s: not-a-real-token}\n", ts.Name, prog.Platform.Workflows.Namespace, ts.Key), "platc-bootstrap")
}

// argocdConfig writes argocd-cm and argocd-rbac-cm as the argo-cd chart
// renders configs.cm and configs.rbac of the values platc generates.
func (f *fixture) argocdConfig(t *testing.T, prog *ir.Program) {
	t.Helper()
	configs := argocd.ChartValues(prog)["configs"].(map[string]any)
	for name, part := range map[string]string{"argocd-cm": "cm", "argocd-rbac-cm": "rbac"} {
		cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": prog.Platform.ArgoCD.Namespace}, "data": configs[part]}
		b, err := json.Marshal(cm)
		if err != nil {
			t.Fatal(err)
		}
		f.s.Apply(t, string(b), "platc-bootstrap")
	}
}

// healthy writes every app's Application as Synced and Healthy.
func (f *fixture) healthy(t *testing.T) {
	for _, a := range f.apps {
		f.s.Application(t, f.argocd, a, "Healthy", "Synced")
	}
}

type result struct {
	code   int
	report map[string]any
	logs   string
	out    string
}

// run runs one action as the user of token, with edits to the input.
func (f *fixture) run(t *testing.T, action config.Action, token string, edit func(*config.Input)) result {
	t.Helper()
	in := config.Input{
		Action:         action,
		KubeconfigData: base64.StdEncoding.EncodeToString(f.s.Kubeconfig(token)),
		Environment:    "staging",
		PlatformPath:   f.dir,
		EnvFile:        "",
		LogFormat:      "json",
		LogLevel:       "debug",
		TraceID:        testTrace,
		SpanID:         testParentSpan,
	}
	in.EnvFile = filepath.Join(f.dir, "absent.yaml")
	if action == config.Teardown {
		in.TeardownConfirm = f.name
	}
	if edit != nil {
		edit(&in)
	}
	if in.EnvFile == filepath.Join(f.dir, "absent.yaml") {
		in.EnvFile = ""
	}
	cfg, probs := config.Load(in)
	var out, logs bytes.Buffer
	if !probs.Empty() {
		return result{code: exitcode.Invalid, logs: strings.Join(probs.Errors, "\n")}
	}
	f.logs.reset()
	trace, err := executor.StartTrace(context.Background(), cfg, "test", time.Now())
	if err != nil { // run may be on another goroutine: no t.Fatal
		return result{code: exitcode.Invalid, logs: err.Error()}
	}
	traceID, spanID := trace.IDs()
	log := logging.New(io.MultiWriter(&logs, &f.logs), logging.Options{Format: cfg.LogFormat, Level: cfg.LogLevel, Action: string(action), TraceID: traceID, SpanID: spanID})
	log.Redact(cfg.Secrets...)
	code := executor.Run(context.Background(), cfg, executor.Env{
		Trace: trace, Stdout: &out, Log: log, ToolPath: f.tools, PollInterval: 50 * time.Millisecond, CallTimeout: 5 * time.Second,
		// No namespace controller runs here: a deleted namespace stays
		// terminating, so the wait is kept short.
		NamespaceWait: 2 * time.Second,
	})
	r := result{code: code, logs: logs.String(), out: out.String()}
	if err := json.Unmarshal(out.Bytes(), &r.report); err != nil {
		t.Fatalf("report is not one JSON object: %v\n%s", err, out.String())
	}
	if strings.Contains(r.logs+r.out, testenv.AdminToken) || strings.Contains(r.logs+r.out, testenv.DeployerToken) {
		t.Errorf("a token reached the logs or the report")
	}
	return r
}

// async runs an action in the background; the test plays the controllers.
func (f *fixture) async(t *testing.T, action config.Action, token string, edit func(*config.Input)) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- f.run(t, action, token, edit) }()
	return ch
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(90 * time.Second):
		t.Fatal("the executor did not finish within 90s")
		return result{}
	}
}

func (f *fixture) selector(action string) string {
	return fmt.Sprintf("%s=%s,%s=%s", executor.LabelPlatform, f.name, executor.LabelAction, action)
}

func (f *fixture) countWorkflows(t *testing.T) int {
	_, dc := f.s.Clients(t)
	l, err := dc.Resource(testenv.WorkflowGVR).Namespace(f.wf).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

func expect(t *testing.T, r result, code int, status string) {
	t.Helper()
	if r.code != code || r.report["status"] != status {
		t.Fatalf("exit %d status %v, want exit %d status %s\nreport: %s\nlogs:\n%s", r.code, r.report["status"], code, status, r.out, r.logs)
	}
}

func contains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}

// toolsDir writes the required tools as scripts that print their real
// --version output (recorded from the real tools). versions overrides one
// tool's output; an empty string leaves the tool out.
func toolsDir(t *testing.T, versions map[string]string) string {
	dir := t.TempDir()
	out := map[string]string{
		"ansible-playbook": "ansible-playbook [core 2.17.7]\n  config file = None\n  python version = 3.12.8 (main, Dec  3 2024) [GCC 12.2.0] (" + filepath.Join(dir, "python3") + ")",
		// Ansible's interpreter, answering Phase 0's package probe with
		// the image's packages.
		"python3":  `{"kubernetes": "33.1.0", "openshift": "0.13.2", "PyYAML": "6.0.2", "jsonpatch": "1.33"}`,
		"kubectl":  "Client Version: v1.34.1\nKustomize Version: v5.7.1",
		"helm":     "v3.19.0+g3d8990f",
		"kubeseal": "kubeseal version: 0.32.2",
		"jq":       "jq-1.7.1",
		"yq":       "yq (https://github.com/mikefarah/yq/) version v4.47.2",
		"ansible-galaxy": `{"/usr/share/ansible/collections/ansible_collections": {"kubernetes.core": {"version": "5.3.0"}, ` +
			`"community.general": {"version": "10.7.0"}, "ansible.posix": {"version": "2.0.0"}, "ansible.utils": {"version": "6.0.0"}}}`,
	}
	for k, v := range versions {
		out[k] = v
	}
	for name, text := range out {
		if text == "" {
			continue
		}
		script := "#!/bin/sh\ncat <<'PLATC_EOF'\n" + text + "\nPLATC_EOF\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The scripts need cat.
	return dir + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
}

// grantDeployer gives user deployer exactly the permissions Phase 0 asks
// for deploy, nothing to write but Workflows (and the root Application's
// sync policy, by name).
func grantDeployer(t *testing.T, s *testenv.Server) {
	s.Grant(t, "deployer", "platc-test-deployer", []rbacv1.PolicyRule{
		{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"nodes", "pods"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"namespaces"}},
		{Verbs: []string{"get"}, APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}},
		{Verbs: []string{"create", "get", "list"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows"}},
		{Verbs: []string{"get"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflowtemplates", "clusterworkflowtemplates"}},
		{Verbs: []string{"list"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications", "appprojects"}},
		// patch: to restore the automated sync a teardown switched off.
		{Verbs: []string{"get", "patch"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, ResourceNames: []string{"platc-root"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"argocd-cm"}},
		// validate: the Argo components' workloads' readiness.
		{Verbs: []string{"list"}, APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets"}},
	})
}

// The trace context every fixture run is handed (TRACE_ID, SPAN_ID).
const (
	testTrace      = "4bf92f3577b34da6a3ce929d0e0e4736"
	testParentSpan = "00f067aa0ba902b7"
)

// The happy path runs for real in e2e (TestExample, and every action as
// the least-privileged deployer in TestFailureThenResume); this test keeps
// it only to reach what follows it: drift and a stale comparison.
func TestDeploySucceedsAsLeastPrivilegedUser(t *testing.T) {
	f := newFixture(t, "ok")
	f.primitives(t)
	// The permission list is sufficient, and platc writes nothing else.
	grantDeployer(t, f.s)
	ch := f.async(t, config.Deploy, testenv.DeployerToken, nil)
	wf := f.s.WaitWorkflow(t, f.wf, f.selector("deploy"), 30*time.Second)
	if ref, _, _ := unstructuredString(wf.Object, "spec", "workflowTemplateRef", "name"); ref != "deploy" {
		t.Errorf("workflowTemplateRef = %q, want deploy", ref)
	}
	// The trace context reaches the Workflow, and every step pod as
	// TRACEPARENT: the run's own span, a child of SPAN_ID.
	ann := wf.GetAnnotations()
	tp := ann[executor.AnnotationTraceparent]
	if ann[executor.AnnotationTrace] != testTrace || !regexp.MustCompile(`^00-`+testTrace+`-[0-9a-f]{16}-01$`).MatchString(tp) ||
		strings.Contains(tp, testParentSpan) || ann[executor.AnnotationSpan] != tp[36:52] {
		t.Errorf("trace context not propagated to the workflow: %v", ann)
	}
	if patch, _, _ := unstructuredString(wf.Object, "spec", "podSpecPatch"); patch != `{"containers":[{"env":[{"name":"TRACEPARENT","value":"`+tp+`"}],"name":"main"}]}` {
		t.Errorf("podSpecPatch = %q", patch)
	}
	f.s.WorkflowStatus(t, wf, "Running", "", testenv.Node{Task: "db", Phase: "Running"}, testenv.Node{Task: "cache", Phase: "Running"})
	time.Sleep(300 * time.Millisecond)
	f.healthy(t)
	f.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"}, testenv.Node{Task: "api", Phase: "Succeeded"})
	r := wait(t, ch)
	expect(t, r, exitcode.OK, "succeeded")
	if strings.Contains(r.logs, "differs from the one this platform source generates") {
		t.Error("the generated templates were applied unchanged, yet platc reports drift")
	}
	contains(t, "logs", r.logs, `"phase":"orchestration","component":"db","message":"running"`, `"component":"api","message":"succeeded in`,
		`"trace_id":"`+testTrace+`"`, `"span_id":"`+ann[executor.AnnotationSpan]+`"`, "progress: 3 of 3 apps done")
	comps := r.report["components"].([]any)
	if len(comps) != 3 || comps[2].(map[string]any)["app"] != "api" || comps[2].(map[string]any)["status"] != "succeeded" {
		t.Errorf("components: %v", comps)
	}

	// A second deploy on the healthy platform changes nothing: no new
	// Workflow object (RFC 7.3).
	before := f.countWorkflows(t)
	r = f.run(t, config.Deploy, testenv.DeployerToken, nil)
	expect(t, r, exitcode.OK, "succeeded")
	contains(t, "summary", fmt.Sprint(r.report["summary"]), "already Synced and Healthy; nothing changed")
	if n := f.countWorkflows(t); n != before {
		t.Errorf("deploy on a healthy platform created a workflow (%d → %d)", before, n)
	}

	// The platform source changes (api's timeouts) but nobody rebuilt the
	// templates: the run goes on with the cluster's, and says so.
	src, _ := os.ReadFile(filepath.Join(f.dir, "platform.hcl"))
	edited := strings.Replace(string(src), `depends_on = [stack.data]`, "depends_on = [stack.data]\n  timeouts {\n    sync = \"17m\"\n  }", 1)
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	f.s.Retarget(t, f.argocd, "db", "v1b")
	r = f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "logs", r.logs, "differs from the one this platform source generates")
	contains(t, "report", r.out, "run 'platc build', commit generated/")
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	f.s.Retarget(t, f.argocd, "db", "v1")

	// The root app moved api to a new revision; Argo CD has not compared
	// it yet, so its Synced is about the old one: deploy must run.
	f.s.Retarget(t, f.argocd, "api", "v2")
	r = f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "report", r.out, "deploy 1 app not yet converged, in dependency order: api")
	contains(t, "logs", r.logs, `Argo CD last compared it with targetRevision \"v1\", but the spec now says \"v2\"`)
}

func unstructuredString(obj map[string]any, path ...string) (string, bool, error) {
	cur := any(obj)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[p]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

func TestDeployTimeouts(t *testing.T) {
	f := newFixture(t, "deadline")
	f.primitives(t)
	// The workflow's own activeDeadlineSeconds ran out: the controller
	// fails the running step with this message.
	ch := f.async(t, config.Deploy, testenv.AdminToken, nil)
	wf := f.s.WaitWorkflow(t, f.wf, f.selector("deploy"), 30*time.Second)
	f.s.WorkflowStatus(t, wf, "Failed", "", testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Failed", Message: "Step exceeded its deadline"}, testenv.Node{Task: "api", Phase: "Omitted"})
	r := wait(t, ch)
	expect(t, r, exitcode.Timeout, "timeout")

	// platc's own limit: the workflow is still running when ACTION_TIMEOUT
	// is up. A later run attaches to it rather than starting another.
	f2 := newFixture(t, "slow")
	f2.primitives(t)
	// No controller picks the workflow up at first: platc says so.
	ch = f2.async(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.Timeout = "6s" })
	wf = f2.s.WaitWorkflow(t, f2.wf, f2.selector("deploy"), 30*time.Second)
	f2.waitLog(t, "has not been picked up by the workflow controller yet")
	f2.s.WorkflowStatus(t, wf, "Running", "", testenv.Node{Task: "db", Phase: "Running"})
	r = wait(t, ch)
	expect(t, r, exitcode.Timeout, "timeout")
	contains(t, "report", r.out, "is still running. Run platc deploy again to follow it")

	ch = f2.async(t, config.Deploy, testenv.AdminToken, nil)
	f2.waitLog(t, "following it instead of starting another")
	f2.healthy(t)
	f2.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"}, testenv.Node{Task: "api", Phase: "Succeeded"})
	r = wait(t, ch)
	expect(t, r, exitcode.OK, "succeeded")
	if wfi := r.report["workflow"].(map[string]any); wfi["name"] != wf.GetName() || wfi["attached"] != true {
		t.Errorf("second run did not attach to %s: %v", wf.GetName(), wfi)
	}
	if n := f2.countWorkflows(t); n != 1 {
		t.Errorf("%d workflows, want the one still running to be followed", n)
	}
}

func TestDeployDryRun(t *testing.T) {
	f := newFixture(t, "dry")
	f.primitives(t)
	r := f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "report", r.out, "the API server accepted it in a server-side dry run", "deploy 3 apps not yet converged")
	if n := f.countWorkflows(t); n != 0 {
		t.Errorf("dry run created %d workflows", n)
	}
}

func TestPhase0(t *testing.T) {
	f := newFixture(t, "phase0")
	f.primitives(t)

	// Authenticated, but without any role.
	r := f.run(t, config.Deploy, testenv.NobodyToken, nil)
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, `user \"nobody\" may not: list nodes (cluster-wide)`, "create workflows.argoproj.io in namespace argo-phase0 (to submit the workflow)")
	if f.countWorkflows(t) != 0 {
		t.Error("Phase 0 failed but a workflow was submitted")
	}

	// Wrong token: 401.
	r = f.run(t, config.Validate, "not-a-valid-token", nil)
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "rejected the credentials (401 Unauthorized)")

	// Nothing listening.
	port := closedPort(t)
	r = f.runKubeconfig(t, testenv.Kubeconfig(fmt.Sprintf("https://127.0.0.1:%d", port), f.s.CA, "x"))
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "cannot reach the Kubernetes API", "connection refused")

	// Something listening that never answers: bounded by the call timeout.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	start := time.Now()
	r = f.runKubeconfig(t, testenv.Kubeconfig("https://"+l.Addr().String(), f.s.CA, "x"))
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "no answer within the time limit")
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("an API server that never answers took %s to give up", d)
	}

	// A missing tool is exit 3 before the cluster is touched.
	f.tools = toolsDir(t, map[string]string{"helm": ""})
	r = f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.Invalid, "invalid")
	contains(t, "report", r.out, "helm is not installed (not found on PATH); RFC 3.2.1 requires helm 3.12.0 or later")
}

// An app without a source adopts an Application that must exist: deploy's
// Phase 0 stops when it does not, and goes on once it does.
func TestDeployAdoptedApplication(t *testing.T) {
	f := newFixture(t, "adopt")
	src, err := os.ReadFile(filepath.Join(f.dir, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	adopted := strings.Replace(string(src), "  source { path = \"apps/api\" }\n", "  application = \"legacy-api\"\n", 1)
	if adopted == string(src) {
		t.Fatal("the fixture's api app has no source line to replace")
	}
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(adopted), 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)
	r := f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "Phase 0 found blocking problems: adopted-applications",
		"these do not exist in namespace argocd-adopt: legacy-api (app api); create them, or give each app a source block")
	if f.countWorkflows(t) != 0 {
		t.Error("Phase 0 failed but a workflow was submitted")
	}

	f.s.Application(t, f.argocd, "legacy-api", "Healthy", "Synced")
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "logs", r.logs, "the 1 Application adopted by apps without a source exists")
}

// An app deploying to another cluster needs Argo CD to know that
// cluster as its environment declares it: Phase 0 of deploy, teardown
// and validate asks for the cluster Secrets only then; deploy and
// teardown stop while the cluster is unknown or registered with another
// server, validate warns and goes on, and all go on once it is
// registered.
func TestDeployDestinationCluster(t *testing.T) {
	f := newFixture(t, "dest")
	src, err := os.ReadFile(filepath.Join(f.dir, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "  domain = \"staging.example.com\"\n", "  domain = \"staging.example.com\"\n  cluster \"edge-eu\" {\n    server = \"https://edge-eu.example.com:6443\"\n  }\n", 1)
	edited = strings.Replace(edited, "  source { path = \"apps/api\" }\n", "  cluster    = \"edge-eu\"\n  source { path = \"apps/api\" }\n", 1)
	if strings.Count(edited, "edge-eu") != 3 {
		t.Fatal("the fixture's environment or api app changed shape")
	}
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)

	// The least-privileged deployer may not read Secrets: Phase 0 says
	// which permission the remote cluster adds.
	grantDeployer(t, f.s)
	r := f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "list secrets in namespace argocd-dest")

	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "Phase 0 found blocking problems: destination-clusters",
		`Argo CD knows no cluster named \"edge-eu\" (apps api) (an Application for a cluster Argo CD does not know never syncs)`)

	// Teardown stops there too: Argo CD could not delete what api
	// deployed. Validate only warns, and goes on to report every app.
	r = f.run(t, config.Teardown, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "Phase 0 found blocking problems: destination-clusters",
		`Argo CD knows no cluster named \"edge-eu\" (apps api) (Argo CD cannot delete what the apps deployed there`)
	if f.countWorkflows(t) != 0 {
		t.Error("teardown's Phase 0 failed but a workflow was submitted")
	}
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	contains(t, "report", r.out, `"name":"destination-clusters","status":"warn"`,
		`Argo CD knows no cluster named \"edge-eu\" (apps api) (the apps deploying there cannot be Synced or Healthy)`)
	contains(t, "logs", r.logs, `"phase":"verification"`)
	if strings.Contains(r.out, "Phase 0 found blocking problems") {
		t.Errorf("validate stopped at an unknown cluster:\n%s", r.out)
	}
	// Validate's least-privileged reader is told which permission the
	// remote cluster adds, as the deployer is.
	r = f.run(t, config.Validate, testenv.DeployerToken, nil)
	contains(t, "report", r.out, "list secrets in namespace argocd-dest")

	secret := `apiVersion: v1
kind: Secret
metadata:
  name: cluster-edge-eu
  namespace: argocd-dest
  labels:
    argocd.argoproj.io/secret-type: cluster
stringData:
  name: edge-eu
  server: %s
  config: '{"bearerToken":"not-a-real-token"}'
`
	f.s.Apply(t, fmt.Sprintf(secret, "https://edge-eu.other.example.com"), "dest")
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, `Argo CD's cluster \"edge-eu\" has the server https://edge-eu.other.example.com, and the platform declares https://edge-eu.example.com:6443`)
	if strings.Contains(r.out+r.logs, "not-a-real-token") {
		t.Error("the cluster Secret's credentials reached the report or the logs")
	}

	f.s.Apply(t, fmt.Sprintf(secret, "https://edge-eu.example.com:6443/"), "dest")
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "logs", r.logs, "Argo CD knows the 1 declared cluster apps deploy to: edge-eu")
	for _, action := range []config.Action{config.Validate, config.Teardown} {
		r = f.run(t, action, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
		contains(t, "logs", r.logs, "Argo CD knows the 1 declared cluster apps deploy to: edge-eu")
	}
}

func (f *fixture) runKubeconfig(t *testing.T, kc []byte) result {
	t.Helper()
	return f.run(t, config.Validate, "", func(in *config.Input) {
		in.KubeconfigData = base64.StdEncoding.EncodeToString(kc)
	})
}

func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return p
}

// TestDeployNeedsBootstrap: with the Argo namespaces and templates absent,
// deploy must bootstrap, which needs cluster-admin; a deployer without it
// is told so before anything runs.
func TestDeployNeedsBootstrap(t *testing.T) {
	f := newFixture(t, "bare")
	grantDeployer(t, f.s)
	r := f.run(t, config.Deploy, testenv.DeployerToken, nil)
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, "bootstrap is needed (Argo CD (namespace argocd-bare)", "may not: create namespaces (cluster-wide)",
		"may not: create namespaces (cluster-wide) (bootstrap creates the Argo namespaces); any verb on any resource (cluster-admin)",
		`"name":"argo-workflows","status":"info","message":"Argo Workflows is not installed: namespace argo-bare missing"`)
	contains(t, "logs", r.logs, `"phase":"bootstrap","component":"Argo CD","message":"not installed: missing namespace argocd-bare"`)

	// A cluster admin's dry run says what bootstrap would run, and runs
	// nothing.
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "report", r.out, "bootstrap Argo CD (namespace argocd-bare) and Argo Workflows (namespace argo-bare): ansible-playbook -i inventories/staging/hosts.yml site.yml --extra-vars @../platc-vars.json")
}

// TestEnvironmentFile: /config/environment.yaml moves the Argo CD
// namespace, and validate reads the Applications there.
func TestEnvironmentFile(t *testing.T) {
	f := newFixture(t, "envf")
	f.primitives(t)
	f.s.Namespace(t, "gitops-envf")
	for _, a := range f.apps {
		f.s.Application(t, "gitops-envf", a, "Healthy", "Synced")
	}
	envFile := filepath.Join(f.dir, "environment.yaml")
	if err := os.WriteFile(envFile, []byte("name: staging\ndomain: staging.example.org\ngitRepository: https://git.example.org/p.git\ngitRevision: v2\nargocdNamespace: gitops-envf\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Failure, "unhealthy")
	// The environment file's repository and revision are what the root
	// must follow: the bootstrap of the source alone is drift there.
	f.s.Namespace(t, "gitops-envf")
	f.bootstrapObjects(t, withArgoNS(f.program(t, ""), "gitops-envf"))
	r = f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.EnvFile = envFile })
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "report", r.out, `targetRevision is \"v1\", the platform says \"v2\"`, `repoURL is \"https://git.example.com/platform.git\", the platform says \"https://git.example.org/p.git\"`)
	f.bootstrapObjects(t, f.program(t, envFile))
	r = f.run(t, config.Validate, testenv.AdminToken, func(in *config.Input) { in.EnvFile = envFile })
	expect(t, r, exitcode.OK, "healthy")
	contains(t, "report", r.out, `"argocd":{"name":"Argo CD","installed":true,"namespace":"gitops-envf"}`)
}

// TestDeployAttachesToSensorRun: a deploy submitted by the Argo Events
// sensor (template labels, no scope label) is followed, not duplicated.
func TestDeployAttachesToSensorRun(t *testing.T) {
	f := newFixture(t, "sensor")
	f.primitives(t)
	wf := f.s.Create(t, testenv.WorkflowGVR, f.wf, fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: deploy-
  labels: {%s: deploy, platc.io/trigger: git-push}
spec:
  workflowTemplateRef: {name: deploy}
`, executor.LabelAction), "argo-events-sensor")
	f.s.WorkflowStatus(t, wf, "Running", "", testenv.Node{Task: "db", Phase: "Running"})
	ch := f.async(t, config.Deploy, testenv.AdminToken, nil)
	f.waitLog(t, "following it instead of starting another")
	f.healthy(t)
	f.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"}, testenv.Node{Task: "api", Phase: "Succeeded"})
	r := wait(t, ch)
	expect(t, r, exitcode.OK, "succeeded")
	if n := f.countWorkflows(t); n != 1 {
		t.Errorf("%d workflows, want only the sensor's", n)
	}
}

// TestDeployIgnoresForeignWorkflows (issue 21): the platc.io/workflow
// label alone made deploy attach. An undecodable Workflow with it failed
// every deploy; one with a 285-year activeDeadlineSeconds made deploy
// wait that long without submitting its own. Workflows carrying every
// label of a real run, but not running this platform's own template as
// it is, are reported and ignored: deploy submits and follows its own.
func TestDeployIgnoresForeignWorkflows(t *testing.T) {
	f := newFixture(t, "foreign")
	f.primitives(t)
	labels := fmt.Sprintf("{%s: deploy, %s: %s, %s: staging, %s: platform, hostile: %q}",
		executor.LabelAction, executor.LabelPlatform, f.name, executor.LabelEnvironment, executor.LabelScope, "yes")
	cases := []struct{ name, spec, status, reason string }{
		{"undecodable", "workflowTemplateRef: {name: deploy}", "{phase: Running, compressedNodes: '%%% not base64'}", "cannot be decoded"},
		{"forever", "workflowTemplateRef: {name: deploy}\n  activeDeadlineSeconds: 9000000000", "{phase: Running}", "overrides the template's activeDeadlineSeconds"},
		{"inline", "entrypoint: main\n  templates: [{name: main, container: {name: main, image: busybox}}]", "{phase: Running}", "does not run WorkflowTemplate deploy"},
		{"cluster-template", "workflowTemplateRef: {name: deploy, clusterScope: true}", "{phase: Running}", "does not run WorkflowTemplate deploy"},
		// platc's own trace podSpecPatch is the only one allowed: not one
		// that changes the image, nor a TRACEPARENT that is not one.
		{"pod-patch", "workflowTemplateRef: {name: deploy}\n  podSpecPatch: '{\"containers\":[{\"image\":\"evil\",\"name\":\"main\"}]}'", "{phase: Running}", "overrides the template's podSpecPatch"},
		{"trace-patch", "workflowTemplateRef: {name: deploy}\n  podSpecPatch: '{\"containers\":[{\"env\":[{\"name\":\"TRACEPARENT\",\"value\":\"x\"}],\"name\":\"main\"}]}'", "{phase: Running}", "overrides the template's podSpecPatch"},
	}
	for _, c := range cases {
		f.s.Create(t, testenv.WorkflowGVR, f.wf, fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  name: %s\n  labels: %s\nspec:\n  %s\nstatus: %s\n",
			c.name, labels, c.spec, c.status), "attacker")
	}
	ch := f.async(t, config.Deploy, testenv.AdminToken, nil)
	wf := f.s.WaitWorkflow(t, f.wf, f.selector("deploy")+",!hostile", 30*time.Second)
	f.healthy(t)
	f.s.WorkflowStatus(t, wf, "Succeeded", "", testenv.Node{Task: "db", Phase: "Succeeded"}, testenv.Node{Task: "cache", Phase: "Succeeded"}, testenv.Node{Task: "api", Phase: "Succeeded"})
	r := wait(t, ch)
	expect(t, r, exitcode.OK, "succeeded")
	if wfi := r.report["workflow"].(map[string]any); wfi["name"] != wf.GetName() || wfi["attached"] == true {
		t.Errorf("followed %v, want its own workflow %s", wfi, wf.GetName())
	}
	ignored := map[string]string{}
	list, _ := r.report["ignored_workflows"].([]any)
	for _, x := range list {
		m := x.(map[string]any)
		ignored[m["name"].(string)] = m["reason"].(string)
	}
	for _, c := range cases {
		if !strings.Contains(ignored[c.name], c.reason) {
			t.Errorf("workflow %s: reported reason %q, want %q", c.name, ignored[c.name], c.reason)
		}
		contains(t, "logs", r.logs, "ignoring workflow "+c.name+" labelled platc.io/workflow=deploy")
	}

	// A run exactly like the sensor's, of a template that is not this
	// platform's (labelled for another one), is not followed either.
	_, dc := f.s.Clients(t)
	patch := []byte(`{"metadata":{"labels":{"` + executor.LabelPlatform + `":"other"}}}`)
	if _, err := dc.Resource(testenv.WorkflowTemplateGVR).Namespace(f.wf).Patch(context.Background(), "deploy", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	f.s.Create(t, testenv.WorkflowGVR, f.wf, fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  name: sensor-like\n  labels: {%s: deploy}\nspec:\n  workflowTemplateRef: {name: deploy}\nstatus: {phase: Running}\n",
		executor.LabelAction), "attacker")
	r = f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "succeeded")
	contains(t, "logs", r.logs, "ignoring workflow sensor-like labelled platc.io/workflow=deploy: WorkflowTemplate deploy is not labelled platc.io/platform=foreign")
}

// TestScopedRunFollowsOnlyItsOwnSpec (issue 21): a scoped run has no
// template to check, and its labels are easy to forge. A Workflow with
// every label of a scoped deploy but another spec is reported and
// ignored; one with the spec this platform compiles for the scope (an
// earlier run that timed out) is followed.
func TestScopedRunFollowsOnlyItsOwnSpec(t *testing.T) {
	f := newFixture(t, "scoped")
	f.primitives(t)
	f.s.Create(t, testenv.WorkflowGVR, f.wf, fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata:\n  name: forged\n  labels: {%s: deploy, %s: %s, %s: staging, %s: app.cache, hostile: 'yes'}\n"+
		"spec:\n  entrypoint: main\n  activeDeadlineSeconds: 9000000000\n  templates: [{name: main, container: {name: main, image: busybox}}]\nstatus: {phase: Running}\n",
		executor.LabelAction, executor.LabelPlatform, f.name, executor.LabelEnvironment, executor.LabelScope), "attacker")
	scoped := func(in *config.Input) { in.TargetScope = "app:cache"; in.Timeout = "4s" }

	// No controller runs here: platc's own run times out, still running.
	r := f.run(t, config.Deploy, testenv.AdminToken, scoped)
	expect(t, r, exitcode.Timeout, "timeout")
	contains(t, "logs", r.logs, "ignoring workflow forged labelled platc.io/workflow=deploy: its spec is not the workflow this platform source compiles for scope app:cache")
	own := r.report["workflow"].(map[string]any)["name"]
	if own == "forged" || own == nil {
		t.Fatalf("followed %v", own)
	}
	// The next run follows platc's own, and still not the forged one.
	r = f.run(t, config.Deploy, testenv.AdminToken, scoped)
	expect(t, r, exitcode.Timeout, "timeout")
	if wfi := r.report["workflow"].(map[string]any); wfi["name"] != own || wfi["attached"] != true {
		t.Errorf("second run followed %v, want its own %v attached", wfi, own)
	}
	if n := f.countWorkflows(t); n != 2 {
		t.Errorf("%d workflows, want the forged one and platc's own", n)
	}
}

// program compiles the fixture's platform as the executor does, with
// the environment file envFile ("" for none).
func (f *fixture) program(t *testing.T, envFile string) *ir.Program {
	t.Helper()
	cfg, probs := config.Load(config.Input{Action: config.Validate, KubeconfigData: base64.StdEncoding.EncodeToString(f.s.Kubeconfig(testenv.AdminToken)),
		Environment: "staging", PlatformPath: f.dir, EnvFile: envFile, LogFormat: "json", LogLevel: "info"})
	if !probs.Empty() {
		t.Fatal(probs.Errors)
	}
	return cfg.Program
}

// withArgoNS is p with Argo CD in namespace ns, as an environment file
// that only moved the namespace would compile it.
func withArgoNS(p *ir.Program, ns string) *ir.Program {
	p.Platform.ArgoCD.Namespace = ns
	return p
}

// TestDeployBootstrapDrift: a health rule added after day 0 compiles, but
// argocd-cm still has day 0's rules. validate reports it, one line per
// kind (exit 2); deploy, dry or not, would reconcile it by running the
// bootstrap, which the least-privileged deployer may not, so it refuses
// before submitting anything (exit 1) and names the kinds. The
// deployer's validate and refusals show the permissions Phase 0 lists
// are enough to read what is compared (all but the Helm releases, the
// RBAC ConfigMap and the token, which are reported as not read). Once
// argocd-cm carries the rule, a cluster admin's deploy goes on, only
// warning that the root still follows v1: this Argo CD has no Helm
// release of the bootstrap, so platc does not reconcile it.
func TestDeployBootstrapDrift(t *testing.T) {
	f := newFixture(t, "bsdrift")
	f.primitives(t)
	grantDeployer(t, f.s)
	f.healthy(t)
	r := f.run(t, config.Validate, testenv.DeployerToken, nil)
	expect(t, r, exitcode.OK, "healthy")
	if _, ok := r.report["bootstrap_drift"]; ok {
		t.Errorf("drift on a cluster bootstrapped from this platform: %v", r.report["bootstrap_drift"])
	}

	src, err := os.ReadFile(filepath.Join(f.dir, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	day2 := strings.Replace(string(src), "depends_on = [stack.data]", "depends_on = [stack.data]\n  custom_resources = [\"example.com/Gateway\"]", 1)
	day2 = strings.Replace(day2, `revision = "v1"`, `revision = "v2"`, 1)
	day2 += "\nhealth \"example.com/Gateway\" {\n  healthy = obj.status.ready == true\n}\n"
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(day2), 0o644); err != nil {
		t.Fatal(err)
	}

	r = f.run(t, config.Validate, testenv.DeployerToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "report", r.out, `"what":"health","object":"example.com/Gateway","message":"argocd-cm's health customization for example.com/Gateway: Lua script missing","apps":["api"],"blocking":true`,
		`"what":"root","object":"platc-root"`, "cd generated/staging/ansible \u0026\u0026 ansible-playbook site.yml",
		`"summary":"all 3 apps Healthy and Synced; 2 differences (health and root) between`,
		"not compared, as the kubeconfig's user may not read them: the Helm releases' Secrets (in namespaces argo-bsdrift, argo-events, argocd-bsdrift and kube-system), ConfigMap argocd-bsdrift/argocd-rbac-cm and Secret argo-bsdrift/platc-argocd-token")
	contains(t, "logs", r.logs, `"component":"bootstrap-drift","message":"health: argocd-cm's health customization for example.com/Gateway: Lua script missing (used by api) [blocks deploy]"`,
		`"component":"bootstrap-drift","message":"root: the root Application platc-root follows another source: targetRevision is \"v1\", the platform says \"v2\""`)

	for _, dry := range []string{"", "true"} {
		r = f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.DryRun = dry })
		expect(t, r, exitcode.Failure, map[string]string{"": "failed", "true": "dry-run"}[dry])
		contains(t, "summary", fmt.Sprint(r.report["summary"]),
			"to start the deploy workflow: what the bootstrap installed differs from the platform (health and root; argocd-cm's health customizations differ from the compiled ones for example.com/Gateway), and reconciling it runs the bootstrap, which the kubeconfig's user may not: create namespaces")
		if n := f.countWorkflows(t); n != 0 {
			t.Errorf("deploy refused on drift, yet %d workflows exist", n)
		}
	}

	// The bootstrap runs again: argocd-cm now has the rule; the root,
	// which this fixture does not move, still says v1.
	f.argocdConfig(t, f.program(t, ""))
	r = f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "succeeded")
	contains(t, "summary", fmt.Sprint(r.report["summary"]), "nothing changed; 1 difference (root) between what the bootstrap installed and what the platform compiles to (not reconciled: this Argo CD was not installed by platc's bootstrap)")
}

// TestDagCustomization (RFC 7.4): a dag.yaml run is compiled on the
// spot like a scoped run: only its subset is deployed, the dependency it
// adds and the timeout it sets are in the submitted workflow, the run
// carries its own scope label (so a plain run never follows it), and the
// report records the customization.
func TestDagCustomization(t *testing.T) {
	f := newFixture(t, "dag")
	f.primitives(t)
	dag := filepath.Join(f.dir, "dag.yaml")
	if err := os.WriteFile(dag, []byte("subset: {apps: [cache, api]}\ndependencies:\n  add: [{app: cache, dependsOn: db}]\ntimeouts: {api: {health: 17m}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DagFile = dag; in.Timeout = "4s" })
	expect(t, r, exitcode.Timeout, "timeout") // no controller runs here
	contains(t, "report", r.out, `"dag":{"path":"`+dag, `"subset":["cache","api"]`, `"dependencies_added":["cache → db"]`, `"timeouts":["api"]`)
	contains(t, "logs", r.logs, "applies to this run only: 2 apps chosen, dependencies added: cache → db and timeouts of api")

	_, dc := f.s.Clients(t)
	l, err := dc.Resource(testenv.WorkflowGVR).Namespace(f.wf).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("workflows: %v, %d", err, len(l.Items))
	}
	wf := l.Items[0]
	if got := wf.GetLabels()[executor.LabelScope]; !strings.HasPrefix(got, "dag.") || len(got) != len("dag.")+12 {
		t.Errorf("scope label %q, want dag.<sha256 prefix>", got)
	}
	if wf.Object["spec"].(map[string]any)["workflowTemplateRef"] != nil {
		t.Error("a customized run references the committed template instead of being compiled")
	}
	b, _ := json.Marshal(wf.Object["spec"])
	spec := string(b)
	for _, want := range []string{
		`"name":"cache","template":"sync-and-wait"`,
		// 17m health timeout: 1020 s; api waits for cache.
		`{"name":"health-timeout","value":"1020"}`, `"depends":"cache","name":"api","template":"sync-and-wait"`,
		// db is outside the subset: checked Healthy, not deployed.
		`"name":"db","template":"check-healthy"`,
	} {
		if !strings.Contains(spec, want) {
			t.Errorf("the submitted workflow lacks %s:\n%s", want, spec)
		}
	}
	if strings.Contains(spec, `"name":"db","template":"sync-and-wait"`) {
		t.Errorf("db is outside the subset, yet the workflow deploys it:\n%s", spec)
	}

	// A plain run of the platform does not follow the customized one.
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.Timeout = "4s"; in.DryRun = "true" })
	contains(t, "report", r.out, `"scope":"platform"`)
	if strings.Contains(r.out, `"attached":true`) {
		t.Errorf("a plain run attached to the customized one:\n%s", r.out)
	}
}

// TestValidateUndeclaredHooks (RFC 7.2's compliance report, INV-8): a
// hook Argo CD ran for an Application that its app declares no hook of
// that phase for is a failed compliance line naming the app, the kind,
// the name and the phase, and makes validate degraded; a declared one
// passes. The hooks are written into the Applications' status as Argo CD
// records a sync's result.
func TestValidateUndeclaredHooks(t *testing.T) {
	f := newFixture(t, "hooks")
	hclPath := filepath.Join(f.dir, "platform.hcl")
	src, err := os.ReadFile(hclPath)
	if err != nil {
		t.Fatal(err)
	}
	db := "    source { path = \"apps/db\" }\n"
	if !strings.Contains(string(src), db) {
		t.Fatal("fixture changed: no db source")
	}
	src = []byte(strings.Replace(string(src), db, db+"    hook \"migrate\" {\n      phase    = \"PreSync\"\n      purpose  = \"migration\"\n      manifest = \"apps/db/migrate.yaml\"\n    }\n", 1))
	if err := os.WriteFile(hclPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)
	f.healthy(t)
	_, dc := f.s.Clients(t)
	hooks := func(app string, results ...map[string]any) {
		t.Helper()
		ctx := context.Background()
		u, err := dc.Resource(testenv.ApplicationGVR).Namespace(f.argocd).Get(ctx, app, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var rs []any
		for _, r := range results {
			rs = append(rs, r)
		}
		op := map[string]any{"phase": "Succeeded", "operation": map[string]any{"sync": map[string]any{}},
			"startedAt": "2026-01-01T00:00:00Z", "syncResult": map[string]any{"revision": "0123456789abcdef0123456789abcdef01234567", "resources": rs}}
		if err := unstructured.SetNestedField(u.Object, op, "status", "operationState"); err != nil {
			t.Fatal(err)
		}
		if _, err := dc.Resource(testenv.ApplicationGVR).Namespace(f.argocd).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("application %s status: %v", app, err)
		}
	}
	job := func(ns, name, phase string) map[string]any {
		return map[string]any{"group": "batch", "version": "v1", "kind": "Job", "namespace": ns, "name": name,
			"status": "Synced", "hookType": phase, "hookPhase": "Succeeded", "syncPhase": phase, "message": "job completed"}
	}
	hooks("db", job("data-hooks", "db-migrate", "PreSync"))
	hooks("api", job("api-hooks", "api-wait-for-db", "PostSync"),
		map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "api-hooks", "name": "api", "status": "Synced", "syncPhase": "Sync"})

	r := f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "report", r.out, `"invariant":"INV-8"`, `"status":"fail"`, `1 hook no hook block declares: app api: batch/Job api-hooks/api-wait-for-db (PostSync)`)
	if strings.Contains(r.out, "db-migrate") || strings.Contains(r.out, "/Deployment api-hooks") {
		t.Errorf("a declared hook or a plain resource reported as undeclared:\n%s", r.out)
	}

	// Once the undeclared hook is gone from Argo CD's record, INV-8 passes.
	hooks("api")
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "healthy")
	contains(t, "report", r.out, `{"invariant":"INV-8","check":"every hook Argo CD ran or keeps is one the platform declares","status":"pass"}`)
}
