package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
)

// The scenarios need the environment's binaries (.ci/e2e/build.sh) and
// minutes of wall time; make e2e sets PLATC_E2E=1 and PLATC_E2E_BIN.
// Without them every scenario skips and says why; with PLATC_E2E=1 a
// missing binary fails.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("PLATC_E2E") != "1" {
		t.Skip("end-to-end scenario: run make e2e (PLATC_E2E=1 with the binaries of .ci/e2e/build.sh)")
	}
	if os.Getenv("PLATC_E2E_BIN") == "" {
		t.Fatal("PLATC_E2E=1 but PLATC_E2E_BIN is not set: run .ci/e2e/build.sh and set it to the directory it prints")
	}
}

var (
	platcOnce sync.Once
	platcBin  string
	platcErr  error
)

// platcBinary builds platc from this checkout once per test binary, so
// the scenarios test the code beside them.
func platcBinary(t testing.TB) string {
	t.Helper()
	platcOnce.Do(func() {
		dir, err := os.MkdirTemp("", "platc-e2e-bin-")
		if err != nil {
			platcErr = err
			return
		}
		platcBin = filepath.Join(dir, "platc")
		out, err := exec.Command("go", "build", "-o", platcBin, "../cmd/platc").CombinedOutput()
		if err != nil {
			platcErr = fmt.Errorf("go build ../cmd/platc: %v\n%s", err, out)
		}
	})
	if platcErr != nil {
		t.Fatal(platcErr)
	}
	return platcBin
}

// scenario is one environment with one platform in it, for one test.
type scenario struct {
	t   *testing.T
	ctx context.Context
	env *Env
	pl  *Platform
}

// start brings up a fresh environment and the platform at path in it.
// PLATC_E2E_OUT, when set, keeps each scenario's environment directory
// (logs, step output) there; otherwise it goes with the test.
func start(t *testing.T, path string, fail ...string) *scenario {
	t.Helper()
	return startWith(t, PlatformOptions{Path: path, Fail: fail})
}

// startWith is start with every option of the platform (Platc is
// filled in).
func startWith(t *testing.T, opts PlatformOptions) *scenario {
	t.Helper()
	requireE2E(t)
	platc := platcBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	if out := os.Getenv("PLATC_E2E_OUT"); out != "" {
		dir = filepath.Join(out, t.Name())
		_ = os.RemoveAll(dir)
	}
	bin := os.Getenv("PLATC_E2E_BIN")
	src := os.Getenv("PLATC_E2E_SRC")
	if src == "" {
		src = filepath.Join(bin, "..", "src")
	}
	env, err := Start(ctx, Options{Bin: bin, Src: src, Dir: dir, Platc: platc, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	opts.Platc = platc
	pl, err := env.Deploy(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario{t: t, ctx: ctx, env: env, pl: pl}
	t.Cleanup(func() {
		if p := pl.Problems(); len(p) > 0 {
			t.Errorf("the simulated runtime could not do everything a cluster would:\n  %s", strings.Join(p, "\n  "))
		}
		if t.Failed() {
			t.Logf("environment directory: %s (logs/, steps/)", dir)
		}
	})
	return s
}

// run runs platc ACTION and checks its exit code.
func (s *scenario) run(action string, want int, env ...string) *Result {
	s.t.Helper()
	r, err := s.pl.Platc(s.ctx, action, env...)
	if err != nil {
		s.t.Fatal(err)
	}
	if r.ExitCode != want {
		s.t.Fatalf("platc %s %s exited %d, want %d; report:\n%s\nlast log lines:\n%s", action, strings.Join(env, " "), r.ExitCode, want, r.Report, r.LastLog(25))
	}
	return r
}

// apps returns the platform's Applications as the cluster has them,
// keyed by app name; a missing one is absent from the map.
func (s *scenario) apps() map[string]*unstructured.Unstructured {
	s.t.Helper()
	ns := s.pl.Program.Platform.ArgoCD.Namespace
	list, err := s.env.Dynamic.Resource(applicationGVR).Namespace(ns).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, a := range s.pl.Program.Apps {
		for i := range list.Items {
			if list.Items[i].GetName() == a.Application {
				out[a.Name] = &list.Items[i]
			}
		}
	}
	return out
}

func status(u *unstructured.Unstructured) (sync, health string) {
	sync, _, _ = unstructured.NestedString(u.Object, "status", "sync", "status")
	health, _, _ = unstructured.NestedString(u.Object, "status", "health", "status")
	return sync, health
}

// wantConverged checks that every named app (all apps when none are
// named) is Synced and Healthy.
func (s *scenario) wantConverged(names ...string) {
	s.t.Helper()
	if len(names) == 0 {
		for _, a := range s.pl.Program.Apps {
			names = append(names, a.Name)
		}
	}
	apps := s.apps()
	for _, n := range names {
		u, ok := apps[n]
		if !ok {
			s.t.Errorf("%s has no Application", n)
			continue
		}
		if sync, health := status(u); sync != "Synced" || health != "Healthy" {
			s.t.Errorf("%s is %s/%s, want Synced/Healthy", n, sync, health)
		}
	}
}

// started lists the platform's apps with a sync operation among evs.
func (s *scenario) started(evs []Event) []string {
	var out []string
	for _, a := range s.pl.Program.Apps {
		if _, ok := First(evs, a.Application, OperationStarted); ok {
			out = append(out, a.Name)
		}
	}
	slices.Sort(out)
	return out
}

// workflowList lists the Workflows in the platform's workflows namespace.
func (s *scenario) workflowList() []unstructured.Unstructured {
	s.t.Helper()
	l, err := s.env.Dynamic.Resource(workflowGVR).Namespace(s.pl.Program.Platform.Workflows.Namespace).List(s.ctx, metav1.ListOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return l.Items
}

// workflows counts them.
func (s *scenario) workflows() int { return len(s.workflowList()) }

// wantIn checks that text (a report or logs) says each of want.
func wantIn(t *testing.T, what, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not say %q:\n%s", what, w, text)
		}
	}
}

// settle waits until the Application watch has delivered what happened
// before an action returned. (Errorf, not Fatal: subtests call it with
// the scenario's t.)
func (s *scenario) settle() {
	s.t.Helper()
	if s.pl.Timeline == nil {
		return // no watch: platc deploy bootstrapped the platform (DeployBootstraps), not the harness
	}
	if err := s.pl.Timeline.Settle(s.ctx, 30*time.Second); err != nil {
		s.t.Errorf("settle: %v", err)
	}
}

func wantSame(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

func wantNone(t *testing.T, what string, list []string) {
	t.Helper()
	if len(list) > 0 {
		t.Errorf("%s:\n  %s", what, strings.Join(list, "\n  "))
	}
}

// asDeployer grants the user "deployer" what platc's Phase 0 says the
// executor needs once Argo CD and Argo Workflows are installed, for
// deploy, validate and teardown (cluster-wide reads, Workflows in the
// workflows namespace), and nothing else; it returns the environment
// variable that runs the executor as that user. Phase 0 and every action
// then prove the list is enough on the real API server.
func (s *scenario) asDeployer() string {
	s.t.Helper()
	p := s.pl.Program.Platform
	kc, err := s.env.DeployerKubeconfig()
	if err != nil {
		s.t.Fatal(err)
	}
	cluster := []rbacv1.PolicyRule{
		{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"nodes", "persistentvolumeclaims", "persistentvolumes"}},
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"namespaces"}},
		{Verbs: []string{"get", "list"}, APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}},
		{Verbs: []string{"get"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"clusterworkflowtemplates"}},
		// Teardown's scan for objects left with a gone app's instance
		// label: every kind, read only (executor/leftovers.go).
		{Verbs: []string{"list"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	}
	namespaced := map[string][]rbacv1.PolicyRule{
		"kube-system": {{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
		p.Workflows.Namespace: {
			{Verbs: []string{"create", "get", "list"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows"}},
			{Verbs: []string{"get"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflowtemplates"}},
		},
		p.ArgoCD.Namespace: {
			{Verbs: []string{"list"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications", "appprojects"}},
			// What the bootstrap installed, compared with the compiled
			// platform; the root's automated sync, switched off by a
			// teardown and restored by the next deploy.
			{Verbs: []string{"get", "patch"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, ResourceNames: []string{"platc-root"}},
			{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"argocd-cm"}},
		},
	}
	// The namespaces Argo CD created for the apps, which teardown deletes
	// once they are gone, by name.
	var created []string
	for _, a := range s.pl.Program.Apps {
		if a.Destination.InCluster() && !slices.Contains(a.Sync.Options, "CreateNamespace=false") && !slices.Contains(created, a.Namespace) &&
			!slices.Contains([]string{"default", "kube-system", "kube-public", "kube-node-lease", p.ArgoCD.Namespace, p.Workflows.Namespace}, a.Namespace) &&
			(s.pl.Program.Events == nil || a.Namespace != s.pl.Program.Events.Namespace) {
			created = append(created, a.Namespace)
		}
	}
	if len(created) > 0 {
		cluster = append(cluster, rbacv1.PolicyRule{Verbs: []string{"delete"}, APIGroups: []string{""}, Resources: []string{"namespaces"}, ResourceNames: created})
		// A namespace that holds VolumeSnapshots is kept.
		if slices.ContainsFunc(s.pl.Program.Apps, func(a *ir.App) bool { return a.Teardown.Volumes == ir.VolumesSnapshot }) {
			cluster = append(cluster, rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{"snapshot.storage.k8s.io"}, Resources: []string{"volumesnapshots"}})
		}
	}
	if o, err := argo.Build(s.pl.Program); err != nil {
		s.t.Fatal(err)
	} else if len(o.Children[argo.DeployTemplate]) > 0 || len(o.Children[argo.TeardownTemplate]) > 0 {
		// A split run stops the children its ended parent left running
		// (Phase 0 asks for it only then).
		namespaced[p.Workflows.Namespace] = append(namespaced[p.Workflows.Namespace],
			rbacv1.PolicyRule{Verbs: []string{"patch"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows"}})
	}
	// The resume's read of each waited-for resource, by name: Phase 0
	// asks for it in the resource's namespace as an optional permission
	// (executor/resources.go). Granted cluster-wide by name here, as a
	// Role cannot be made before Argo CD creates the app's namespace. The
	// plural is the one e2e/content.go gives the simulated CRDs, <kind>s;
	// discovery cannot tell it yet, since the CRDs come with the apps.
	for _, a := range s.pl.Program.Apps {
		for _, res := range a.Resources {
			cluster = append(cluster, rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{res.Group},
				Resources: []string{strings.ToLower(res.Kind) + "s"}, ResourceNames: []string{res.ResourceName}})
		}
	}
	if ev := s.pl.Program.Events; ev != nil {
		// The push trigger a teardown stops first and a deploy restores.
		namespaced[p.ArgoCD.Namespace] = append(namespaced[p.ArgoCD.Namespace],
			rbacv1.PolicyRule{Verbs: []string{"get", "patch"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, ResourceNames: []string{"platc-events"}})
		namespaced[ev.Namespace] = append(namespaced[ev.Namespace],
			rbacv1.PolicyRule{Verbs: []string{"get", "delete"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"sensors"}, ResourceNames: []string{"platc-deploy"}})
	}
	rbac := s.env.Kube.RbacV1()
	subject := []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "deployer"}}
	meta := metav1.ObjectMeta{Name: "platc-deployer"}
	if _, err := rbac.ClusterRoles().Create(s.ctx, &rbacv1.ClusterRole{ObjectMeta: meta, Rules: cluster}, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	if _, err := rbac.ClusterRoleBindings().Create(s.ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: meta, Subjects: subject,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: meta.Name}}, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	for ns, rules := range namespaced {
		m := metav1.ObjectMeta{Name: "platc-deployer", Namespace: ns}
		if _, err := rbac.Roles(ns).Create(s.ctx, &rbacv1.Role{ObjectMeta: m, Rules: rules}, metav1.CreateOptions{}); err != nil {
			s.t.Fatal(err)
		}
		if _, err := rbac.RoleBindings(ns).Create(s.ctx, &rbacv1.RoleBinding{ObjectMeta: m, Subjects: subject,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: m.Name}}, metav1.CreateOptions{}); err != nil {
			s.t.Fatal(err)
		}
	}
	return "KUBECONFIG_PATH=" + kc
}

// orphan creates an Application in the platform's project that the
// platform does not declare, and returns a function that deletes it.
func (s *scenario) orphan(name string) func() {
	s.t.Helper()
	p := s.pl.Program
	ri := s.env.Dynamic.Resource(applicationGVR).Namespace(p.Platform.ArgoCD.Namespace)
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": p.Platform.ArgoCD.Namespace},
		"spec": map[string]any{"project": p.Apps[0].Project,
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "default"},
			"source":      map[string]any{"repoURL": p.Platform.Git.RepoURL, "path": "legacy", "targetRevision": p.Platform.Git.Revision}},
	}}
	if _, err := ri.Create(s.ctx, app, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	return func() {
		if err := ri.Delete(s.ctx, name, metav1.DeleteOptions{}); err != nil {
			s.t.Fatal(err)
		}
	}
}
