package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/emit"
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
