package argo

import (
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
)

// Emitter writes generated/<env>/workflows/.
type Emitter struct{}

// Name is the output area, "workflows".
func (Emitter) Name() string { return "workflows" }

// Emit returns templates.yaml, deploy.yaml, teardown.yaml, validate.yaml
// and rbac.yaml. An error means platc built something Argo would reject:
// a bug, or a platform beyond Argo's limits (tens of thousands of apps).
func (Emitter) Emit(p *ir.Program) ([]emit.File, error) {
	b := newBuilder(p)
	cwt := b.clusterTemplate()
	deploy, _, err := b.deploy()
	if err != nil {
		return nil, fmt.Errorf("workflows: deploy: %w", err)
	}
	teardown, err := b.teardown()
	if err != nil {
		return nil, fmt.Errorf("workflows: teardown: %w", err)
	}
	validate, err := b.validate()
	if err != nil {
		return nil, fmt.Errorf("workflows: validate: %w", err)
	}
	if err := checkNamespace(p.Platform.Workflows.Namespace); err != nil {
		return nil, fmt.Errorf("workflows: %w (the compiler should have rejected it; this is a platc bug)", err)
	}
	for _, spec := range []*wfv1.WorkflowSpec{&cwt.Spec, &deploy.Spec, &teardown.Spec, &validate.Spec} {
		if err := checkSpec(spec); err != nil {
			return nil, fmt.Errorf("workflows: %w (this is a platc bug)", err)
		}
	}
	var files []emit.File
	for _, f := range []struct {
		path string
		objs []any
	}{
		{"workflows/templates.yaml", []any{cwt}},
		{"workflows/deploy.yaml", []any{deploy}},
		{"workflows/teardown.yaml", []any{teardown}},
		{"workflows/validate.yaml", []any{validate}},
		{"workflows/rbac.yaml", b.rbac()},
	} {
		data, err := render(f.objs...)
		if err != nil {
			return nil, fmt.Errorf("workflows: %s: %w", f.path, err)
		}
		files = append(files, emit.File{Path: f.path, Data: data})
	}
	return files, nil
}

// render is emit.YAML after dropping the empty objects that Argo's typed
// templates cannot omit (a template's metadata, inputs and outputs, a
// task's arguments): noise that hides what matters in a review.
func render(objs ...any) ([]byte, error) {
	clean := make([]any, len(objs))
	for i, o := range objs {
		m, err := emit.Tree(o)
		if err != nil {
			return nil, err
		}
		prune(m, "")
		// Nothing platc emits has a status; a typed Workflow's zero status
		// still marshals startedAt: null, which its CRD schema rejects.
		if obj, ok := m.(map[string]any); ok {
			delete(obj, "status")
		}
		clean[i] = m
	}
	return emit.YAMLTrees(clean...), nil
}

// noiseKeys are dropped when empty, below the object's own metadata.
var noiseKeys = map[string]bool{"metadata": true, "inputs": true, "outputs": true, "arguments": true}

// prune walks a decoded object; parent is the key it sits under ("" at
// the top). A script's container has no name of its own (Argo names it
// "main"), but the typed Container always carries the field.
func prune(v any, parent string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			prune(c, k)
			if m, ok := c.(map[string]any); ok && parent != "" && len(m) == 0 && noiseKeys[k] {
				delete(x, k)
			}
		}
		if parent == "script" && x["name"] == "" {
			delete(x, "name")
		}
	case []any:
		for _, c := range x {
			prune(c, parent)
		}
	}
}
