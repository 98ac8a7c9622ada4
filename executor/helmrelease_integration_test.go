package executor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
)

// helmBin finds the real helm: beside PLATC_KUBE_APISERVER (where the e2e
// cache keeps it), then on PATH. Without it the test is skipped, unless
// PLATC_REQUIRE_APISERVER=1 says the machine has the e2e tools.
func helmBin(t *testing.T) string {
	t.Helper()
	if api := os.Getenv("PLATC_KUBE_APISERVER"); api != "" {
		if p := filepath.Join(filepath.Dir(api), "helm"); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath("helm"); err == nil {
		return p
	}
	if os.Getenv("PLATC_REQUIRE_APISERVER") == "1" {
		t.Fatal("PLATC_REQUIRE_APISERVER=1 but no helm beside kube-apiserver or on PATH")
	}
	t.Skip("helm is not installed")
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// helmInstall installs every release of prog's bootstrap with the real
// helm, as the roles do (helm upgrade -i --reset-values with the values
// file: argocd/values.yaml for argo-cd, the role's values dumped to a
// file for the others), from stub charts of the pinned name and version
// (the real charts are on the internet), each templating one ConfigMap.
// Helm itself writes the release Secrets platc then reads.
func (f *fixture) helmInstall(t *testing.T, helm string, prog *ir.Program) {
	t.Helper()
	rels, err := ansible.Releases(prog)
	if err != nil {
		t.Fatal(err)
	}
	files, err := argocd.Values{}.Emit(prog)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, f.s.Kubeconfig(testenv.AdminToken), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		chart := filepath.Join(dir, r.Name, r.Chart)
		if err := os.MkdirAll(filepath.Join(chart, "templates"), 0o700); err != nil {
			t.Fatal(err)
		}
		write := func(p, s string) {
			if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(chart, "Chart.yaml"), fmt.Sprintf("apiVersion: v2\nname: %s\nversion: %s\nappVersion: stub\n", r.Chart, r.Version))
		write(filepath.Join(chart, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-platc-stub\ndata:\n  chart: {{ .Chart.Name }}\n")
		values := filepath.Join(dir, r.Name, "values.yaml")
		if r.ValuesFile != "" {
			for _, file := range files {
				if file.Path == r.ValuesFile {
					write(values, string(file.Data))
				}
			}
		} else {
			b, err := json.Marshal(r.Values) // JSON is YAML, as Helm reads it
			if err != nil {
				t.Fatal(err)
			}
			write(values, string(b))
		}
		cmd := exec.Command(helm, "upgrade", "-i", r.Name, chart, "--namespace", r.Namespace, "--create-namespace", "--reset-values",
			"--values="+values, "--kubeconfig", kc)
		cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(dir, "cache"), "HELM_CONFIG_HOME="+filepath.Join(dir, "config"), "HELM_DATA_HOME="+filepath.Join(dir, "data"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helm upgrade -i %s: %v\n%s", r.Name, err, out)
		}
	}
}

// releaseRevisions counts the Secrets Helm keeps for release name.
func (f *fixture) releaseRevisions(t *testing.T, ns, name string) int {
	kc, _ := f.s.Clients(t)
	l, err := kc.CoreV1().Secrets(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return len(l.Items)
}

// TestDeployReconcilesHelmReleases: a platform whose bootstrap's releases
// were written by the real helm, with the values files the roles pass.
//
// Day 0: platc reads Helm's records and finds the releases exactly as the
// platform compiles them, and nothing else differs. Day 2 (a new health
// rule, a new revision): validate names each kind (release, health,
// root) with what differs, exit 2; a dry-run deploy plans the reconcile
// and changes nothing; the real deploy runs the real ansible-playbook on
// the generated bootstrap against this API server. The argo-cd role gets
// as far as helm upgrade (its pre-checks read the cluster, and helm_info
// reads the release Helm wrote); the chart repository cannot be reached
// here, so the upgrade fails and deploy refuses to start the workflow,
// exit 1, naming the kinds. Installing the real charts needs the internet
// and a cluster that runs pods: e2e's job, not this one's.
func TestDeployReconcilesHelmReleases(t *testing.T) {
	helm := helmBin(t)
	ansibleBin, err := exec.LookPath("ansible-playbook")
	if err != nil {
		if os.Getenv("PLATC_REQUIRE_ANSIBLE") == "1" {
			t.Fatal("PLATC_REQUIRE_ANSIBLE=1 but ansible-playbook is not installed")
		}
		t.Skip("ansible-playbook is not installed")
	}
	f := newFixture(t, "helmrel")
	// A chart repository nothing listens on: the upgrade must fail here,
	// fast, rather than reach the internet.
	repo := fmt.Sprintf("http://127.0.0.1:%d", closedPort(t))
	src, err := os.ReadFile(filepath.Join(f.dir, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	day0 := strings.Replace(string(src), `platform "helmrel" {`, fmt.Sprintf("platform \"helmrel\" {\n  bootstrap {\n    argo_repo           = %q\n    sealed_secrets_repo = %q\n  }", repo, repo), 1)
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(day0), 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)
	f.helmInstall(t, helm, f.program(t, ""))
	f.healthy(t)

	r := f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "healthy")
	if _, ok := r.report["bootstrap_drift"]; ok {
		t.Errorf("drift on a cluster whose releases Helm installed from this platform's values: %v", r.report["bootstrap_drift"])
	}
	if p, ok := r.report["problems"]; ok {
		t.Errorf("problems: %v", p)
	}

	day2 := strings.Replace(day0, "depends_on = [stack.data]", "depends_on = [stack.data]\n  custom_resources = [\"example.com/Gateway\"]", 1)
	day2 = strings.Replace(day2, `revision = "v1"`, `revision = "v2"`, 1)
	day2 += "\nhealth \"example.com/Gateway\" {\n  healthy = obj.status.ready == true\n}\n"
	if err := os.WriteFile(filepath.Join(f.dir, "platform.hcl"), []byte(day2), 0o644); err != nil {
		t.Fatal(err)
	}
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "report", r.out,
		`"summary":"all 3 apps Healthy and Synced; 4 differences (release, health and root) between what the bootstrap installed and what the platform compiles to"`,
		`{"what":"release","object":"argocd","message":"Helm release argocd-helmrel/argocd (chart argo-cd), revision 1: values differ at configs.cm.resource.customizations.health.example.com_Gateway (missing)"}`,
		`{"what":"release","object":"platc-root","message":"Helm release argocd-helmrel/platc-root (chart argocd-apps), revision 1: values differ at applications.platc-root.source.targetRevision"}`,
		`{"what":"health","object":"example.com/Gateway"`, `{"what":"root","object":"platc-root"`,
		"platc deploy reconciles it before starting the deploy workflow")
	for _, kind := range []string{"release", "health", "root"} {
		contains(t, "logs", r.logs, `"component":"bootstrap-drift","message":"`+kind+`: `)
	}

	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "plan", fmt.Sprint(r.report["plan"]),
		"reconcile what the bootstrap installed (release, health and root differ): ansible-playbook -i inventories/staging/hosts.yml site.yml --extra-vars @../platc-vars.json in ansible/ of the",
		"compare again, and refuse to start the deploy workflow if argocd-cm's health customizations still differ")
	if n := f.countWorkflows(t); n != 0 {
		t.Errorf("a dry run left %d workflows", n)
	}
	if n := f.releaseRevisions(t, f.argocd, "argocd"); n != 1 {
		t.Errorf("a dry run changed release argocd: %d revisions", n)
	}

	// The real ansible-playbook, with the real helm beside it. Phase 0
	// wants ansible-core 2.15 or later and this machine may have 2.14:
	// the wrapper answers --version for the gate and runs the real
	// ansible-playbook for everything else.
	wrap := t.TempDir()
	// Its Python line is the real one's: Phase 0 checks RFC 3.2.2's
	// packages in the interpreter that then runs the bootstrap.
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ansible-playbook [core 2.17.7]'; %s --version | grep 'python version'; exit 0; fi\nexec %s \"$@\"\n", ansibleBin, ansibleBin)
	if err := os.WriteFile(filepath.Join(wrap, "ansible-playbook"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f.tools = wrap + string(os.PathListSeparator) + toolsDir(t, map[string]string{"ansible-playbook": "", "helm": ""}) + string(os.PathListSeparator) + filepath.Dir(helm)
	r = f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "summary", fmt.Sprint(r.report["summary"]),
		"refused to start the deploy workflow: what the bootstrap installed differs from the platform (release, health and root; argocd-cm's health customizations differ from the compiled ones for example.com/Gateway), and running the bootstrap again failed: ansible-playbook")
	contains(t, "logs", r.logs, `"phase":"reconcile","component":"ansible","message":"running ansible-playbook -i inventories/staging/hosts.yml site.yml`,
		"TASK [argocd : Pre-check | Look up the existing release]", "argocd: failed (Apply | Install the argo-cd chart")
	if n := f.countWorkflows(t); n != 0 {
		t.Errorf("deploy refused, yet %d workflows exist", n)
	}
	if n := f.releaseRevisions(t, f.argocd, "argocd"); n != 1 {
		t.Errorf("a failed upgrade left release argocd with %d revisions", n)
	}
}

// TestDeployReconcileThenRechecks: what deploy does after the bootstrap
// ran again, with a stand-in for ansible-playbook (the real one needs the
// charts from the internet; TestDeployReconcilesHelmReleases runs it as
// far as it gets here). The stand-in runs in the generated ansible/
// directory with the kubeconfig platc hands over. First it changes
// nothing: argocd-cm still lacks the new rule, so deploy refuses (exit 1)
// and says why the bootstrap may have left it. Then it applies the
// compiled health customizations with the real kubectl, as the argo-cd
// release's upgrade would: the comparison after it finds the rule, and
// the deploy goes on, reporting what it reconciled and what still
// differs (the stand-in upgrades no Helm release and no root).
func TestDeployReconcileThenRechecks(t *testing.T) {
	helm := helmBin(t)
	kubectl := filepath.Join(filepath.Dir(helm), "kubectl")
	if !fileExists(kubectl) {
		t.Skip("no kubectl beside helm")
	}
	f := newFixture(t, "recheck")
	f.primitives(t)
	f.helmInstall(t, helm, f.program(t, ""))
	f.healthy(t)
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
	standIn := func(action string) string {
		dir := t.TempDir()
		tools := toolsDir(t, map[string]string{"ansible-playbook": ""})
		python := filepath.Join(filepath.SplitList(tools)[0], "python3")
		script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ansible-playbook [core 2.17.7]'; echo '  python version = 3.12.8 (" + python + ")'; exit 0; fi\n" +
			"test -f site.yml && test -f ../argocd/health.yaml && test -n \"$KUBECONFIG\" || { echo 'not run in the generated tree'; exit 9; }\n" +
			// A reconcile must not have the handoff role submit the deploy
			// workflow: platc does, for its scope, if an app needs it.
			"grep -q '\"gitops_handoff_submit\": false' ../platc-vars.json || { echo 'the handoff would submit a workflow'; exit 8; }\n" +
			"echo \"stand-in bootstrap: $*\"\n" + action + "\n"
		if err := os.WriteFile(filepath.Join(dir, "ansible-playbook"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir + string(os.PathListSeparator) + tools
	}

	f.tools = standIn("exit 0")
	r := f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "summary", fmt.Sprint(r.report["summary"]), "refused to start the deploy workflow: argocd-cm's health customizations differ from the compiled ones for example.com/Gateway")
	contains(t, "report", r.out, `"reconciled":[{"what":"release","object":"argocd"`,
		"The bootstrap ran again, but Helm releases argocd and platc-root still differ from the platform")
	contains(t, "logs", r.logs, "stand-in bootstrap: -i inventories/staging/hosts.yml site.yml --extra-vars @../platc-vars.json",
		`"phase":"reconcile","component":"bootstrap","message":"the bootstrap ran again, yet release, health and root still differ"`)
	if n := f.countWorkflows(t); n != 0 {
		t.Errorf("deploy refused, yet %d workflows exist", n)
	}

	f.tools = standIn(kubectl + " apply -f ../argocd/health.yaml")
	r = f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "succeeded")
	contains(t, "summary", fmt.Sprint(r.report["summary"]),
		"ran the bootstrap again to reconcile release, health and root; all 3 apps in scope already Synced and Healthy; nothing changed; 3 differences (release and root) between what the bootstrap installed and what the platform compiles to (still, after the bootstrap ran again)")
	contains(t, "report", r.out, `{"what":"health","object":"example.com/Gateway","message":"argocd-cm's health customization for example.com/Gateway: Lua script missing","apps":["api"],"blocking":true},{"what":"root"`)
	if d, _ := r.report["bootstrap_drift"].([]any); len(d) != 3 {
		t.Errorf("after the reconcile, drift %v", d)
	}
}
