package e2e

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A schedule "validate" that fires every minute, on the shop: Argo CD
// syncs the CronWorkflow from generated/<env>/workflows/schedules.yaml,
// and the real Argo Workflows controller's cron controller starts a
// validate Workflow from it, by reference to the validate template, that
// succeeds on the deployed platform. Only a run created after the deploy
// counts: one that fired during it may see apps not yet Healthy.
func TestScheduledValidate(t *testing.T) {
	dir := shopWith(t, `platform "shop" {`, "schedule \"validate\" {\n  cron = \"* * * * *\"\n}\n\nplatform \"shop\" {")
	s := start(t, dir)
	s.run("deploy", ExitOK, s.asDeployer())
	mark := time.Now().Truncate(time.Second).Add(time.Second)

	deadline := time.Now().Add(4 * time.Minute)
	for {
		var seen []string
		for _, u := range s.workflowList() {
			l := u.GetLabels()
			if l["workflows.argoproj.io/cron-workflow"] != "validate-schedule" {
				continue
			}
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			seen = append(seen, u.GetName()+" "+phase)
			if u.GetCreationTimestamp().Time.Before(mark) {
				continue
			}
			if l["platc.io/trigger"] != "schedule" || l["platc.io/workflow"] != "validate" {
				t.Errorf("%s is labelled %v", u.GetName(), l)
			}
			if ref, _, _ := unstructured.NestedString(u.Object, "spec", "workflowTemplateRef", "name"); ref != "validate" {
				t.Errorf("%s runs %q, want the validate template", u.GetName(), ref)
			}
			switch phase {
			case "Succeeded":
				t.Logf("scheduled run %s succeeded", u.GetName())
				return
			case "Failed", "Error":
				msg, _, _ := unstructured.NestedString(u.Object, "status", "message")
				t.Fatalf("scheduled run %s ended %s: %s", u.GetName(), phase, msg)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled validate created after the deploy succeeded within 4 minutes; runs of the schedule: [%s]", strings.Join(seen, ", "))
		}
		select {
		case <-s.ctx.Done():
			t.Fatal(s.ctx.Err())
		case <-time.After(5 * time.Second):
		}
	}
}
