package executor

import (
	"testing"
	"time"

	"github.com/argoproj/argo-workflows/v3/workflow/common"

	"github.com/platc/platc/emit/argo"
)

// TestScheduledRunIsFollowed: the Workflow the Argo cron controller makes
// from the emitted CronWorkflow (with Argo's own conversion, as
// workflow/cron's operator calls it) is one that running() selects and
// provenance() accepts as a whole-platform run of the action's template,
// so platc deploy attaches to a scheduled deploy in progress instead of
// queueing a second one behind the lock.
func TestScheduledRunIsFollowed(t *testing.T) {
	p := compileEnv(t, `
platform "shop" {
  workflows { namespace = "argo" }
  git { repo_url = "https://git.example.com/shop.git" }
}
app "web" {
  namespace = "web"
  source { path = "apps/web" }
}
schedule "deploy" {
  cron = "0 3 * * *"
}
`, "")
	o, err := argo.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Schedules) != 1 {
		t.Fatalf("%d CronWorkflows, want 1", len(o.Schedules))
	}
	cw := o.Schedules[0]
	wf := common.ConvertCronWorkflowToWorkflowWithProperties(cw, "deploy-schedule-1764126000", time.Unix(1764126000, 0))
	// The conversion applies the CronWorkflow's workflowMetadata labels.
	if got := wf.Labels[LabelAction]; got != DeployTemplate {
		t.Errorf("label %s = %q, want %q", LabelAction, got, DeployTemplate)
	}
	if _, scoped := wf.Labels[LabelScope]; scoped {
		t.Errorf("a scheduled run carries %s; it runs the whole platform", LabelScope)
	}
	if ref := wf.Spec.WorkflowTemplateRef; ref == nil || ref.ClusterScope || ref.Name != DeployTemplate {
		t.Errorf("workflowTemplateRef = %+v, want %s in the namespace", ref, DeployTemplate)
	}
	if extra := specOverrides(wf); len(extra) > 0 {
		t.Errorf("a scheduled run overrides the template's %v; provenance would ignore it", extra)
	}
}
