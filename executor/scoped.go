package executor

import (
	"context"
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
)

// scopedWorkflow compiles the workflow for a stack or app scope: first
// check every dependency outside the scope is Healthy, then run only the
// scope. The Argo Workflows emitter (package emit/argo) owns the shape of
// those workflows.
func scopedWorkflow(cfg *config.Config, params map[string]string) (*wfv1.Workflow, error) {
	return nil, fmt.Errorf("scope %s needs a workflow compiled for the scope, and this build of platc has no Argo Workflows emitter yet; use TARGET_SCOPE=platform", cfg.Scope)
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
