package argo

import (
	"fmt"
	"os"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	"golang.org/x/tools/txtar"

	"github.com/platc/platc/compiler/ir"
)

// resourcesPlatform is the platform of the resources golden.
func resourcesPlatform(t *testing.T) *ir.Program {
	t.Helper()
	a, err := txtar.ParseFile("testdata/golden/resources.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range a.Files {
		if f.Name == "platform.hcl" {
			return source(t, string(f.Data))
		}
	}
	t.Fatal("no platform.hcl in resources.txtar")
	return nil
}

// Argo Workflows' own validation accepts the resource waits in the
// templates, the deploy, and a scoped deploy of one waiting app, whose
// resources' apps are outside the scope: there the waits have no depends
// (the dependency checks ran first) and the template is inlined.
func TestResourceWaitsAccepted(t *testing.T) {
	p := resourcesPlatform(t)
	wfts, cwfts := objects(t, emitFiles(t, p))
	lint := validate.ValidateOpts{Lint: true}
	for name, c := range cwfts {
		if err := validate.ValidateClusterWorkflowTemplate(wfts, cwfts, c, nil, lint); err != nil {
			t.Errorf("ClusterWorkflowTemplate %s: %v", name, err)
		}
	}
	if err := validate.ValidateWorkflowTemplate(wfts, cwfts, wfts[DeployTemplate], nil, lint); err != nil {
		t.Errorf("deploy: %v", err)
	}
	wf, err := ScopedDeploy(p, []*ir.App{p.App("postgres")})
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.ValidateWorkflow(wfts, cwfts, roundTrip(t, wf), nil, lint); err != nil {
		t.Errorf("scoped deploy: %v", err)
	}
	if templateNamed(wf, tmplWaitResource) == nil {
		t.Errorf("the scoped deploy does not carry the wait-resource template")
	}
	got := map[string]string{}
	for _, task := range templateNamed(wf, tmplApps).DAG.Tasks {
		got[task.Name] = task.Depends
	}
	want := map[string]string{
		"wait-ceph-cluster-block-storage": "",
		"wait-postgres-operator-crd":      "",
		"postgres":                        "wait-ceph-cluster-block-storage && wait-postgres-operator-crd",
	}
	for name, dep := range want {
		if d, ok := got[name]; !ok || d != dep {
			t.Errorf("task %s depends %q (present %t), want %q", name, d, ok, dep)
		}
	}
	if len(got) != len(want) {
		t.Errorf("tasks %v, want %v", got, want)
	}
}

// A platform without resource dependencies has no wait-resource template
// (the small golden pins the whole output), and one with them calls it
// with the compiler's decision, never a default.
func TestResourceWaitTemplate(t *testing.T) {
	p := resourcesPlatform(t)
	files := emitFiles(t, p)
	_, cwfts := objects(t, files)
	var tmpl *wfv1.Template
	for _, c := range cwfts {
		for i := range c.Spec.Templates {
			if c.Spec.Templates[i].Name == tmplWaitResource {
				tmpl = &c.Spec.Templates[i]
			}
		}
	}
	if tmpl == nil {
		t.Fatal("no wait-resource template")
	}
	if got := strings.Join(tmpl.Container.Command, " "); got != "platc step wait-resource" {
		t.Errorf("command %q", got)
	}
	if tmpl.RetryStrategy == nil || !strings.Contains(tmpl.RetryStrategy.Expression, "10") {
		t.Errorf("retry strategy %+v does not spare exit 10", tmpl.RetryStrategy)
	}
	small, err := os.ReadFile("testdata/golden/small.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(small), "wait-resource") {
		t.Errorf("the small golden, without resource dependencies, has a wait-resource template")
	}
}

// Wait tasks count against Argo's 200 tasks per DAG: 150 apps waiting
// for 150 resources of one app do not fit one DAG with their waits (301
// tasks), so the deploy is grouped, every template within the limit, and
// Argo's validation accepts it.
func TestResourceWaitsWithinTaskLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`platform "big" {
  git {
    repo_url = "https://git.example.com/big.git"
  }
}
environment "production" {}
app "provider" {
  namespace = "provider"
  source {
    path = "apps/provider"
  }
`)
	for i := range 150 {
		fmt.Fprintf(&b, "  resource \"cm-%d\" {\n    kind = \"ConfigMap\"\n    name = \"cm-%d\"\n  }\n", i, i)
	}
	b.WriteString("}\n")
	for i := range 150 {
		fmt.Fprintf(&b, "app \"user-%d\" {\n  namespace  = \"u\"\n  depends_on = [app.provider.resource.cm-%d]\n  source {\n    path = \"apps/user\"\n  }\n}\n", i, i)
	}
	p := source(t, b.String())
	wfts, cwfts := objects(t, emitFiles(t, p))
	// The deploy may be split into child workflows (over the node
	// budget): the waits are counted in the parent and its children.
	waits := 0
	for name, wft := range wfts {
		if name != DeployTemplate && !strings.HasPrefix(name, DeployTemplate+"-") {
			continue
		}
		for _, tmpl := range wft.Spec.Templates {
			if tmpl.DAG == nil {
				continue
			}
			if n := len(tmpl.DAG.Tasks); n > MaxTasks {
				t.Errorf("%s: template %s has %d tasks", name, tmpl.Name, n)
			}
			for _, task := range tmpl.DAG.Tasks {
				if strings.HasPrefix(task.Name, "wait-provider-") {
					waits++
				}
			}
		}
		if err := validate.ValidateWorkflowTemplate(wfts, cwfts, wft, nil, validate.ValidateOpts{Lint: true}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if waits != 150 {
		t.Errorf("%d wait tasks, want 150", waits)
	}
}

// A split deploy keeps its resource waits: each child that holds an app
// waiting for a resource runs the wait, and Argo's own validation
// accepts every parent and child.
func TestResourceWaitsInChildren(t *testing.T) {
	p := resourcesPlatform(t)
	p.Platform.Workflows.NodeBudget = 20
	o, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Children[DeployTemplate]) < 2 {
		t.Fatalf("deploy has %d children at a budget of 16; the test needs a split", len(o.Children[DeployTemplate]))
	}
	wfts, cwfts := objects(t, emitFiles(t, p))
	lint := validate.ValidateOpts{Lint: true}
	for name, wft := range wfts {
		if err := validate.ValidateWorkflowTemplate(wfts, cwfts, wft, nil, lint); err != nil {
			t.Errorf("WorkflowTemplate %s: %v", name, err)
		}
	}
	waits := map[string]string{}
	for _, c := range o.Children[DeployTemplate] {
		for _, task := range templateNamed(&wfv1.Workflow{Spec: c.Spec}, tmplMain).DAG.Tasks {
			if strings.HasPrefix(task.Name, "wait-") {
				waits[task.Name] = c.Name
			}
		}
	}
	for _, w := range []string{"wait-ceph-cluster-block-storage", "wait-postgres-operator-crd"} {
		if waits[w] == "" {
			t.Errorf("no child runs %s (children's waits: %v)", w, waits)
		}
	}
}
