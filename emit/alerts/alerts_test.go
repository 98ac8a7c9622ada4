package alerts

import (
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/lang"
)

// TestGolden pins the PrometheusRule and the Application and project
// destination that deliver it. The rules' PromQL is parsed and evaluated
// over the executor's real metrics by executor's TestAlertsOn* tests.
func TestGolden(t *testing.T) {
	for _, c := range golden.Load(t, "testdata/golden") {
		t.Run(c.Name, func(t *testing.T) {
			dir := c.WriteInputs(t, t.TempDir())
			m, diags := lang.Parse(filepath.Join(dir, "platform.hcl"))
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			p, diags := compiler.Compile(m, compiler.Options{})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			got := map[string]string{}
			files, err := Emitter{}.Emit(p)
			if err != nil {
				t.Fatal(err)
			}
			apps, err := argocd.Apps{}.Emit(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range append(files, apps...) {
				if f.Path == Path || strings.HasSuffix(f.Path, "/platc-alerts.yaml") || f.Path == "argocd/projects.yaml" {
					got[f.Path] = string(f.Data)
				}
			}
			c.Check(t, got, golden.Update())
		})
	}
}

// TestNoAlertsNoFile: without an alerts block nothing is emitted, and
// no Application waits for a CRD the cluster may not have.
func TestNoAlertsNoFile(t *testing.T) {
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(`
platform "shop" {
  git { repo_url = "https://git.example.com/shop.git" }
}
app "web" {
  namespace = "web"
  source { path = "apps/web" }
}
`)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if files, err := (Emitter{}).Emit(p); err != nil || len(files) > 0 {
		t.Errorf("Emit without alerts: %d files, %v", len(files), err)
	}
	apps, err := argocd.Apps{}.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range apps {
		if strings.Contains(string(f.Data), "platc-alerts") {
			t.Errorf("%s names platc-alerts without an alerts block", f.Path)
		}
	}
}

// TestAnnotationsRender executes every summary and description as
// Prometheus does: a Go template after the variable definitions its
// rule manager prepends (rules/alerting.go), with text/template standing
// in for Prometheus' template package (which brings its query engine),
// so no unknown variable or bad action reaches the rule.
func TestAnnotationsRender(t *testing.T) {
	const defs = "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}"
	data := map[string]any{
		"Labels":         map[string]string{"action": "deploy", "platform": "shop", "environment": "prod", "status": "failed", "app": "orders", "stack": "apps", "health": "Degraded", "type": "app", "name": "orders", "project": "shop", "health_status": "Degraded"},
		"ExternalLabels": map[string]string{},
		"ExternalURL":    "",
		"Value":          1.0,
	}
	p := &ir.Program{Platform: ir.Platform{Name: "shop"}, Env: ir.Environment{Name: "prod"}, Alerts: &ir.Alerts{}}
	for _, g := range Groups(p) {
		for _, a := range g.Alerts {
			for _, text := range []string{a.Summary, a.Description} {
				tmpl, err := template.New(a.Name).Option("missingkey=error").Parse(defs + text)
				if err != nil {
					t.Errorf("%s: %v", a.Name, err)
					continue
				}
				var out strings.Builder
				if err := tmpl.Execute(&out, data); err != nil {
					t.Errorf("%s: %v", a.Name, err)
				} else if strings.Contains(out.String(), "<no value>") {
					t.Errorf("%s: %q reads a label the metric does not have", a.Name, out.String())
				}
			}
		}
	}
}
