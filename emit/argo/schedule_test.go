package argo

import (
	"context"
	"fmt"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/lang"
)

const schedulePlatform = `
platform "shop" {
  workflows { namespace = "argo" }
  git { repo_url = "https://git.example.com/shop.git" }
}
app "web" {
  namespace = "web"
  source { path = "apps/web" }
}
`

// TestArgoAcceptsSchedules validates the emitted CronWorkflows against
// the v3.7.18 full CRD schema (unknown fields forbidden), reads them back
// strictly and runs Argo Workflows' own ValidateCronWorkflow on them (the cron
// expression, the zone, the policy, and the Workflow each one submits,
// against the emitted templates).
func TestArgoAcceptsSchedules(t *testing.T) {
	p := source(t, schedulePlatform+`
schedule "deploy" {
  cron     = "0 3 * * 1-5"
  timezone = "America/New_York"
}
schedule "validate" {
  cron        = "@hourly"
  concurrency = "allow"
  suspend     = true
}
`)
	files := emitFiles(t, p)
	wfts, cwfts := objects(t, files)
	data, ok := files["workflows/schedules.yaml"]
	if !ok {
		t.Fatal("workflows/schedules.yaml was not emitted")
	}
	for i, doc := range documents(data) {
		checkSchema(t, fmt.Sprintf("workflows/schedules.yaml#%d", i), doc)
	}
	var got []string
	for _, o := range parse(t, "workflows/schedules.yaml", data) {
		cw, ok := o.(*wfv1.CronWorkflow)
		if !ok {
			t.Fatalf("unexpected object %T", o)
		}
		if err := validate.ValidateCronWorkflow(context.Background(), wfts, cwfts, cw, nil); err != nil {
			t.Errorf("CronWorkflow %s: %v", cw.Name, err)
		}
		ref := cw.Spec.WorkflowSpec.WorkflowTemplateRef
		got = append(got, fmt.Sprintf("%s %s %v %s %v", cw.Name, ref.Name, cw.Spec.Schedules, cw.Spec.ConcurrencyPolicy, cw.Spec.Suspend))
	}
	want := []string{
		"deploy-schedule deploy [0 3 * * 1-5] Forbid false",
		"validate-schedule validate [@hourly] Allow true",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("CronWorkflows:\n got %q\nwant %q", got, want)
	}
}

// TestNoSchedulesNoFile: without schedule blocks there is no
// schedules.yaml, so platforms that never asked see no new object.
func TestNoSchedulesNoFile(t *testing.T) {
	if _, ok := emitFiles(t, source(t, schedulePlatform))["workflows/schedules.yaml"]; ok {
		t.Error("schedules.yaml emitted without a schedule block")
	}
}

// TestCronVerdictsAgreeWithArgo compiles each expression and zone, and
// gives the same to Argo's ValidateCronWorkflow: the compiler must refuse
// exactly what the controller would, so that an error shows at the HCL
// attribute and never later, as a CronWorkflow Argo CD cannot apply.
// "Local" and a zone prefix are refused by platc alone, on purpose (the
// controller's own clock would decide); they are listed apart.
func TestCronVerdictsAgreeWithArgo(t *testing.T) {
	base := source(t, schedulePlatform)
	wfts, cwfts := objects(t, emitFiles(t, base))
	cases := []struct{ cron, tz string }{
		{"0 3 * * *", "UTC"},
		{"*/5 * * * *", "Europe/Paris"},
		{"0,30 8-18 * * MON-FRI", "Asia/Tokyo"},
		{"@daily", "UTC"},
		{"@every 90m", "UTC"},
		{"0 0 1 JAN *", "Australia/Lord_Howe"},
		{"61 * * * *", "UTC"},
		{"* * * *", "UTC"},
		{"* * * * * *", "UTC"},
		{"0 3 * * 8", "UTC"},
		{"@fortnightly", "UTC"},
		{"", "UTC"},
		{"0 3 * * *", "Mars/Olympus_Mons"},
		{"0 3 * * *", "europe/paris"},
		{"0 3 * * *", "Europe/Paris "},
	}
	for _, c := range cases {
		t.Run(c.cron+"@"+c.tz, func(t *testing.T) {
			cw := &wfv1.CronWorkflow{
				ObjectMeta: metav1.ObjectMeta{Name: "deploy-schedule", Namespace: "argo"},
				Spec: wfv1.CronWorkflowSpec{
					Schedules: []string{c.cron}, Timezone: c.tz, ConcurrencyPolicy: wfv1.ForbidConcurrent,
					WorkflowSpec: wfv1.WorkflowSpec{WorkflowTemplateRef: &wfv1.WorkflowTemplateRef{Name: DeployTemplate}},
				},
			}
			argoErr := validate.ValidateCronWorkflow(context.Background(), wfts, cwfts, cw, nil)
			src := schedulePlatform + fmt.Sprintf("schedule \"deploy\" {\n  cron = %q\n  timezone = %q\n}\n", c.cron, c.tz)
			m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			_, diags = compiler.Compile(m, compiler.Options{})
			if (argoErr == nil) != !diags.HasErrors() {
				t.Errorf("Argo: %v; platc: %v", argoErr, diags)
			}
		})
	}
	for _, c := range []struct{ cron, tz string }{{"0 3 * * *", "Local"}, {"CRON_TZ=UTC 0 3 * * *", "UTC"}} {
		src := schedulePlatform + fmt.Sprintf("schedule \"deploy\" {\n  cron = %q\n  timezone = %q\n}\n", c.cron, c.tz)
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		if _, diags = compiler.Compile(m, compiler.Options{}); !diags.HasErrors() {
			t.Errorf("%q in %q compiled; platc refuses it", c.cron, c.tz)
		}
	}
}
