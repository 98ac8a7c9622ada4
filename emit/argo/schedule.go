package argo

import (
	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
)

// ScheduleSuffix names the CronWorkflow of an action: "deploy-schedule"
// runs DeployTemplate. The controller names each Workflow it starts
// <name>-<unix time>.
const ScheduleSuffix = "-schedule"

// labelTrigger says what started a Workflow; the Argo Events sensor sets
// "git-push".
const labelTrigger = "platc.io/trigger"

var cronTypeMeta = metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "CronWorkflow"}

// schedules are the CronWorkflows of p.Schedules. Each runs the action's
// WorkflowTemplate by reference and nothing else, exactly as the sensor
// and the executor submit it, so the executor follows a scheduled run as
// its own (its provenance check refuses a Workflow that overrides the
// template's spec) and the template's mutex keeps a scheduled deploy from
// overlapping any other deploy or teardown, however it was started.
// Concurrency only decides what happens when the schedule's own last run
// is still going: skip (Forbid) or queue behind the mutex (Allow).
func (b *builder) schedules() []*wfv1.CronWorkflow {
	var out []*wfv1.CronWorkflow
	for _, s := range b.p.Schedules {
		policy := wfv1.ForbidConcurrent
		if s.Concurrency == ir.ConcurrencyAllow {
			policy = wfv1.AllowConcurrent
		}
		labels := b.labels(s.Action)
		labels[labelTrigger] = "schedule"
		out = append(out, &wfv1.CronWorkflow{
			TypeMeta:   cronTypeMeta,
			ObjectMeta: b.objectMeta(s.Action+ScheduleSuffix, s.Action),
			Spec: wfv1.CronWorkflowSpec{
				Schedules:         []string{s.Cron},
				Timezone:          s.Timezone,
				ConcurrencyPolicy: policy,
				Suspend:           s.Suspend,
				WorkflowMetadata:  &metav1.ObjectMeta{Labels: labels},
				WorkflowSpec:      wfv1.WorkflowSpec{WorkflowTemplateRef: &wfv1.WorkflowTemplateRef{Name: s.Action}},
			},
		})
	}
	return out
}
