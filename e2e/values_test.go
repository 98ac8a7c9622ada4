package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/lang"
)

// The workflow controller runs here with what platc's chart values give
// it (issue 19: "Any controller setting the e2e needs, platc ships in its
// generated values"). The scenarios need a requeue shorter than the
// controller's 10 s default, or every step is seconds slower than on the
// cluster platc installs; so the example's generated group_vars must
// carry one, and ParseWorkflowsValues must read it from there. Needs no
// environment.
func TestWorkflowsValues(t *testing.T) {
	m, diags := lang.Parse("../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	files, err := ansible.Emitter{}.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	path := ansible.Dir + "/inventories/" + p.Env.Name + "/group_vars/all.yml"
	i := slices.IndexFunc(files, func(f emit.File) bool { return f.Path == path })
	if i < 0 {
		t.Fatalf("no %s", path)
	}
	cfg, err := ParseWorkflowsValues(files[i].Data, p.Platform.Workflows.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	var requeue string
	for _, e := range cfg.Env {
		if v, ok := strings.CutPrefix(e, "DEFAULT_REQUEUE_TIME="); ok {
			requeue = v
		}
	}
	d, err := time.ParseDuration(requeue)
	if err != nil || d <= 0 || d >= 10*time.Second {
		t.Errorf("the generated values set DEFAULT_REQUEUE_TIME to %q; want a duration under the controller's 10 s default (env %v)", requeue, cfg.Env)
	}
	if cfg.Namespace != p.Platform.Workflows.Namespace {
		t.Errorf("namespace %q", cfg.Namespace)
	}

	// What the harness cannot do as the kubelet would is refused, not
	// dropped.
	bad := "argo_workflows_values:\n  controller:\n    extraEnv:\n      - name: X\n        valueFrom: {secretKeyRef: {name: s, key: k}}\n"
	if _, err := ParseWorkflowsValues([]byte(bad), "argo"); err == nil {
		t.Error("an extraEnv valueFrom was accepted")
	}
	args := "argo_workflows_values:\n  controller:\n    extraArgs: [--qps, \"50\"]\n    extraEnv: [{name: A, value: !unsafe b}]\n"
	cfg, err = ParseWorkflowsValues([]byte(args), "argo")
	if err != nil || !slices.Equal(cfg.Args, []string{"--qps", "50"}) || !slices.Equal(cfg.Env, []string{"A=b"}) {
		t.Errorf("extraArgs and extraEnv read as %+v, %v", cfg, err)
	}
}

// generatedExample is the example's generated tree for its first
// environment, by path, as platc build writes it.
func generatedExample(t *testing.T) map[string][]byte {
	t.Helper()
	p := exampleProgram(t)
	files, err := all.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{"env": []byte(p.Env.Name)}
	for _, f := range files {
		out[f.Path] = f.Data
	}
	return out
}

// exampleProgram is the example compiled for its first environment.
func exampleProgram(t *testing.T) *ir.Program {
	t.Helper()
	m, diags := lang.Parse("../examples")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

// The harness stores the token where the generated group_vars tell the
// gitops-handoff role to; the step pods find it through the generated
// templates' secretKeyRef. The two generated files must agree, or the
// first step of a real bootstrap has no token.
func TestHandoffTokenSecret(t *testing.T) {
	gen := generatedExample(t)
	h, err := ParseHandoff(gen[ansible.Dir+"/inventories/"+string(gen["env"])+"/group_vars/all.yml"])
	if err != nil {
		t.Fatal(err)
	}
	var cwt wfv1.ClusterWorkflowTemplate
	if err := yaml.Unmarshal(gen["workflows/templates.yaml"], &cwt); err != nil {
		t.Fatal(err)
	}
	refs := 0
	for _, tmpl := range cwt.Spec.Templates {
		if tmpl.Script == nil {
			continue
		}
		for _, e := range tmpl.Script.Env {
			if e.Name != "ARGOCD_AUTH_TOKEN" {
				continue
			}
			refs++
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				t.Errorf("template %s does not read the token from a Secret", tmpl.Name)
			} else if r := e.ValueFrom.SecretKeyRef; r.Name != h.SecretName || r.Key != h.Key {
				t.Errorf("template %s reads the token from Secret %s, key %s; the handoff stores it in Secret %s, key %s", tmpl.Name, r.Name, r.Key, h.SecretName, h.Key)
			}
		}
	}
	if refs == 0 {
		t.Error("no template reads ARGOCD_AUTH_TOKEN")
	}
	// The steps run in the workflows namespace; the Secret must be there.
	var wt wfv1.WorkflowTemplate
	if err := yaml.Unmarshal(gen["workflows/deploy.yaml"], &wt); err != nil {
		t.Fatal(err)
	}
	if wt.Namespace != h.Namespace {
		t.Errorf("the deploy template is in %s, the token Secret in %s", wt.Namespace, h.Namespace)
	}
	if _, err := ParseHandoff([]byte("gitops_handoff_argocd_account: platc\ngitops_handoff_token_secret: {name: x, namespace: argo}\n")); err == nil {
		t.Error("a token Secret without a key was accepted")
	}
}

// The volume policies the e2e expects are read from the generated
// teardown template. They must be the policies the generated
// Applications record (platc.io/teardown-volumes, another emitter), and
// the example's snapshot apps are named here by hand from its HCL
// (the five teardown blocks that say snapshot; defaults say retain).
func TestVolumePolicies(t *testing.T) {
	gen := generatedExample(t)
	dir := t.TempDir()
	for _, f := range []string{"workflows/teardown.yaml", "workflows/templates.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, "workflows"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), gen[f], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadVolumePolicies(dir)
	if err != nil {
		t.Fatal(err)
	}
	apps := 0
	for path, b := range gen {
		if !strings.HasPrefix(path, "argocd/apps/") {
			continue
		}
		var app struct {
			Metadata struct {
				Name        string            `json:"name"`
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := yaml.Unmarshal(b, &app); err != nil {
			t.Fatal(err)
		}
		want, ok := app.Metadata.Annotations["platc.io/teardown-volumes"]
		if !ok {
			continue // platc's own Applications
		}
		apps++
		if got[app.Metadata.Name] != want {
			t.Errorf("%s: the teardown template says %q, its Application %q", app.Metadata.Name, got[app.Metadata.Name], want)
		}
	}
	if apps != len(got) || apps != 43 {
		t.Errorf("%d Applications with a policy, %d teardown tasks; the example has 43 apps", apps, len(got))
	}
	var snap []string
	for app, v := range got {
		if v == "snapshot" {
			snap = append(snap, app)
		}
	}
	slices.Sort(snap)
	if want := []string{"ceph-cluster", "ceph-object-store", "kafka", "postgres-clusters", "vault"}; !slices.Equal(snap, want) {
		t.Errorf("snapshot policy for %v, want %v", snap, want)
	}
}
