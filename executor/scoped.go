package executor

import (
	"context"
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
)

// scopedWorkflow compiles the workflow for a stack or app scope with the
// Argo Workflows emitter: a deploy first checks every dependency outside
// the scope is Healthy, then deploys only the scope; a teardown first
// checks every dependent outside the scope is gone, then removes only the
// scope. params set the workflow's arguments (teardown's confirm and
// volumes).
func scopedWorkflow(cfg *config.Config, params map[string]string) (*wfv1.Workflow, error) {
	if cfg.SpotWorkflow != nil {
		// config.Load compiled and checked it against the limits.
		wf := cfg.SpotWorkflow.DeepCopy()
		setParams(wf, params)
		return wf, nil
	}
	var wf *wfv1.Workflow
	var err error
	switch cfg.Action {
	case config.Deploy:
		wf, err = argo.ScopedDeploy(cfg.Program, cfg.ScopeApps)
	case config.Teardown:
		wf, err = argo.ScopedTeardown(cfg.Program, cfg.ScopeApps)
	default:
		return nil, fmt.Errorf("no scoped workflow for %s (this is a platc bug)", cfg.Action)
	}
	if err != nil {
		return nil, fmt.Errorf("compiling the %s workflow for scope %s: %w", cfg.Action, cfg.Scope, err)
	}
	setParams(wf, params)
	return wf, nil
}

// setParams sets the workflow's arguments by name, adding those it does
// not declare.
func setParams(wf *wfv1.Workflow, params map[string]string) {
	for _, name := range sortedKeys(params) {
		v := wfv1.AnyStringPtr(params[name])
		found := false
		for i := range wf.Spec.Arguments.Parameters {
			if p := &wf.Spec.Arguments.Parameters[i]; p.Name == name {
				p.Value, p.Default, found = v, nil, true
			}
		}
		if !found {
			wf.Spec.Arguments.Parameters = append(wf.Spec.Arguments.Parameters, wfv1.Parameter{Name: name, Value: v})
		}
	}
}

// template reads a WorkflowTemplate from the workflows namespace.
func (r *run) template(ctx context.Context, name string) (*wfv1.WorkflowTemplate, error) {
	cctx, cancel := r.client.Call(ctx)
	defer cancel()
	u, err := r.client.Dynamic.Resource(cluster.WorkflowTemplates).Namespace(r.cfg.Program.Platform.Workflows.Namespace).Get(cctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var t wfv1.WorkflowTemplate
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &t); err != nil {
		return nil, fmt.Errorf("decode WorkflowTemplate %s: %w", name, err)
	}
	return &t, nil
}
