package argo

import (
	"bytes"
	"encoding/json"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
)

// Build's typed templates are what the rendered files decode to, so the
// executor compares the cluster's templates with Build's objects and
// gets the answer it got from parsing the emitted YAML back.
func TestBuildMatchesRenderedTemplates(t *testing.T) {
	for name, p := range map[string]*ir.Program{
		"example": example(t),
		"nested":  synthetic(t, synth.Options{Apps: 600, CrossStack: true}),
	} {
		o, err := Build(p)
		if err != nil {
			t.Fatal(err)
		}
		files, err := Emitter{}.Emit(p)
		if err != nil {
			t.Fatal(err)
		}
		rendered := map[string][]byte{}
		for _, f := range files {
			rendered[f.Path] = f.Data
		}
		for _, tmpl := range []string{DeployTemplate, TeardownTemplate, ValidateTemplate} {
			var decoded wfv1.WorkflowTemplate
			if err := yaml.Unmarshal(rendered["workflows/"+tmpl+".yaml"], &decoded); err != nil {
				t.Fatalf("%s: %s: %v", name, tmpl, err)
			}
			typed := o.Template(tmpl)
			if typed == nil {
				t.Fatalf("%s: Build has no template %s", name, tmpl)
			}
			a, _ := json.Marshal(typed.Spec)
			b, _ := json.Marshal(decoded.Spec)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %s: Build's spec and the rendered file's differ", name, tmpl)
			}
		}
		if o.Template("nonsense") != nil {
			t.Errorf("%s: Template(nonsense) found something", name)
		}
	}
}
