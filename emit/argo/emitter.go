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

// Objects are the Argo Workflows objects of generated/<env>/workflows/,
// typed: what Emit renders, and what the executor compares with the
// cluster's templates.
type Objects struct {
	ClusterTemplate            *wfv1.ClusterWorkflowTemplate
	Deploy, Teardown, Validate *wfv1.WorkflowTemplate
	// RBAC are the Role, RoleBinding and (with snapshots) ClusterRole
	// objects of rbac.yaml.
	RBAC []any
}

// Template is the WorkflowTemplate called name (DeployTemplate,
// TeardownTemplate or ValidateTemplate), or nil.
func (o *Objects) Template(name string) *wfv1.WorkflowTemplate {
	for _, t := range []*wfv1.WorkflowTemplate{o.Deploy, o.Teardown, o.Validate} {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Build builds the objects for p. An error means platc built something
// Argo would reject: a bug, or a platform beyond Argo's limits (tens of
// thousands of apps).
func Build(p *ir.Program) (*Objects, error) {
	b := newBuilder(p)
	o := &Objects{ClusterTemplate: b.clusterTemplate()}
	var err error
	if o.Deploy, _, err = b.deploy(); err != nil {
		return nil, fmt.Errorf("workflows: deploy: %w", err)
	}
	if o.Teardown, err = b.teardown(); err != nil {
		return nil, fmt.Errorf("workflows: teardown: %w", err)
	}
	if o.Validate, err = b.validate(); err != nil {
		return nil, fmt.Errorf("workflows: validate: %w", err)
	}
	if err := checkNamespace(p.Platform.Workflows.Namespace); err != nil {
		return nil, fmt.Errorf("workflows: %w (the compiler should have rejected it; this is a platc bug)", err)
	}
	for _, spec := range []*wfv1.WorkflowSpec{&o.ClusterTemplate.Spec, &o.Deploy.Spec, &o.Teardown.Spec, &o.Validate.Spec} {
		if err := checkSpec(spec); err != nil {
			return nil, fmt.Errorf("workflows: %w (this is a platc bug)", err)
		}
	}
	o.RBAC = b.rbac()
	return o, nil
}

// Emit returns templates.yaml, deploy.yaml, teardown.yaml, validate.yaml
// and rbac.yaml, rendered from Build's objects.
func (Emitter) Emit(p *ir.Program) ([]emit.File, error) {
	o, err := Build(p)
	if err != nil {
		return nil, err
	}
	var files []emit.File
	for _, f := range []struct {
		path string
		objs []any
	}{
		{"workflows/templates.yaml", []any{o.ClusterTemplate}},
		{"workflows/deploy.yaml", []any{o.Deploy}},
		{"workflows/teardown.yaml", []any{o.Teardown}},
		{"workflows/validate.yaml", []any{o.Validate}},
		{"workflows/rbac.yaml", o.RBAC},
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
