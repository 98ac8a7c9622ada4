package argo

import (
	"fmt"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/common"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/lang"
)

func compileModule(t testing.TB, m *lang.Module, diags []error) *ir.Program {
	t.Helper()
	p, ds := compiler.Compile(m, compiler.Options{})
	if ds.HasErrors() {
		t.Fatalf("compile: %s", ds.Error())
	}
	return p
}

func example(t testing.TB) *ir.Program {
	t.Helper()
	m, diags := lang.Parse("../../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	return compileModule(t, m, nil)
}

func synthetic(t testing.TB, o synth.Options) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources(synth.Sources(o))
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	return compileModule(t, m, nil)
}

func source(t testing.TB, src string) *ir.Program {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatalf("parse: %s", diags.Error())
	}
	return compileModule(t, m, nil)
}

func emitFiles(t testing.TB, p *ir.Program) map[string][]byte {
	t.Helper()
	files, err := Emitter{}.Emit(p)
	if err != nil {
		t.Fatalf("emit: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		out[f.Path] = f.Data
	}
	return out
}

// platforms are the platforms every whole-output test runs on: the
// example, and synthetic ones of the sizes the issue names, with stacks
// that depend on each other both ways for the nested cases. 10,000 apps
// (about 30,000 edges) is the size platc is measured at; Argo's own
// validation of it takes about 20 s per pass on two cores, so the tests
// that validate run the big platforms side by side (bigPlatform).
func platforms() []struct {
	name string
	opts *synth.Options
} {
	return []struct {
		name string
		opts *synth.Options
	}{
		{"example", nil},
		{"synth-1", &synth.Options{Apps: 1}},
		{"synth-43", &synth.Options{Apps: 43, Stacks: 11}},
		{"synth-500", &synth.Options{Apps: 500}},
		{"synth-500-cross", &synth.Options{Apps: 500, CrossStack: true, Seed: 3}},
		{"synth-5000-cross", &synth.Options{Apps: 5000, CrossStack: true, Seed: 5}},
		{"synth-10000-cross", &synth.Options{Apps: 10000, CrossStack: true}},
	}
}

// bigPlatform lets the subtest of a platform of thousands of apps run in
// parallel with the others: most of its time is Argo's validation, and
// the machine has more than one CPU.
func bigPlatform(t *testing.T, o *synth.Options) {
	if o != nil && o.Apps >= 1000 {
		t.Parallel()
	}
}

func load(t testing.TB, o *synth.Options) *ir.Program {
	if o == nil {
		return example(t)
	}
	return synthetic(t, *o)
}

// parsed is one emitted file read back the way argo lint reads files:
// strictly, so an unknown field is an error.
func parse(t testing.TB, name string, data []byte) []any {
	t.Helper()
	var out []any
	for i, r := range common.ParseObjects(data, true) {
		if r.Err != nil {
			t.Fatalf("%s: object %d does not decode strictly: %v", name, i, r.Err)
		}
		out = append(out, r.Object)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no Argo objects", name)
	}
	return out
}

// getters resolve templateRef and workflowTemplateRef from emitted
// objects, as the cluster would.
type wftGetter map[string]*wfv1.WorkflowTemplate

func (g wftGetter) Get(name string) (*wfv1.WorkflowTemplate, error) {
	if t, ok := g[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("WorkflowTemplate %q not found", name)
}

type cwftGetter map[string]*wfv1.ClusterWorkflowTemplate

func (g cwftGetter) Get(name string) (*wfv1.ClusterWorkflowTemplate, error) {
	if t, ok := g[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("ClusterWorkflowTemplate %q not found", name)
}

// objects parses every Argo file of one build into getters.
func objects(t testing.TB, files map[string][]byte) (wftGetter, cwftGetter) {
	t.Helper()
	wfts, cwfts := wftGetter{}, cwftGetter{}
	for _, path := range []string{"workflows/templates.yaml", "workflows/deploy.yaml", "workflows/teardown.yaml", "workflows/validate.yaml"} {
		data, ok := files[path]
		if !ok {
			t.Fatalf("%s was not emitted", path)
		}
		for _, o := range parse(t, path, data) {
			switch x := o.(type) {
			case *wfv1.WorkflowTemplate:
				wfts[x.Name] = x
			case *wfv1.ClusterWorkflowTemplate:
				cwfts[x.Name] = x
			default:
				t.Fatalf("%s: unexpected object %T", path, o)
			}
		}
	}
	return wfts, cwfts
}

var _ = emit.Header
