package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// checkDrift compares the WorkflowTemplate a whole-platform run is about
// to use with the one platc build generates from the source this run
// compiled. They differ when the generated output was not rebuilt and
// committed, Argo CD has not synced it yet, or environment.yaml changes a
// value the template embeds. The run goes on with the template in the
// cluster (it is what Argo CD deploys from Git); the operator is told.
//
// A workflow split into child workflows is compared with its children
// too: the parent runs whatever child WorkflowTemplates the cluster holds.
func (r *run) checkDrift(ctx context.Context, name string) {
	o, err := r.emitted().Objects()
	if err != nil {
		r.log.Warnf(r.phase, "workflow", "cannot generate WorkflowTemplate %s to compare: %v", name, err)
		return
	}
	want := o.Template(name)
	if want == nil {
		r.log.Warnf(r.phase, "workflow", "cannot generate WorkflowTemplate %s to compare: the Argo Workflows emitter builds none", name)
		return
	}
	for _, t := range append([]*wfv1.WorkflowTemplate{want}, o.Children[name]...) {
		r.compareTemplate(ctx, t)
	}
}

// compareTemplate warns when the cluster's WorkflowTemplate of want's
// name is not want.
func (r *run) compareTemplate(ctx context.Context, want *wfv1.WorkflowTemplate) {
	name := want.Name
	have, err := r.template(ctx, name)
	if err != nil {
		r.log.Warnf(r.phase, "workflow", "cannot read WorkflowTemplate %s to compare: %s", name, r.client.Explain(err))
		return
	}
	a, errA := json.Marshal(want.Spec)
	b, errB := json.Marshal(have.Spec)
	if errA != nil || errB != nil || bytes.Equal(a, b) {
		return
	}
	r.log.Warnf(r.phase, "workflow", "WorkflowTemplate %s/%s in the cluster differs from the one this platform source generates; the run uses the one in the cluster",
		have.Namespace, name)
	r.rep.recommend("WorkflowTemplate %s in the cluster is not what the mounted platform source generates: run 'platc build', commit generated/, and let Argo CD sync platc-workflows (environment.yaml values that the template embeds only take effect that way).", name)
}

// generatedTemplate is the WorkflowTemplate platc build writes to
// workflows/<name>.yaml for the run's program, as the emitter builds it.
func (r *run) generatedTemplate(name string) (*wfv1.WorkflowTemplate, error) {
	o, err := r.emitted().Objects()
	if err != nil {
		return nil, err
	}
	if t := o.Template(name); t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("the Argo Workflows emitter builds no WorkflowTemplate %s", name)
}
