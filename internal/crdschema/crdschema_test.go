package crdschema

import (
	"errors"
	"testing"
)

// Every kind's schema compiles, accepts a well-formed object and is
// strict: the same object with one field misspelt or mistyped is refused,
// so a passing validation means something.
func TestSchemasAreStrict(t *testing.T) {
	for _, tc := range []struct{ kind, good, bad string }{
		{"WorkflowTemplate",
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"WorkflowTemplate","metadata":{"name":"x"},"spec":{"templates":[{"name":"a","suspend":{}}]}}`,
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"WorkflowTemplate","metadata":{"name":"x"},"spec":{"templates":[{"name":"a","bogus":true,"suspend":{}}]}}`},
		{"ClusterWorkflowTemplate",
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"ClusterWorkflowTemplate","metadata":{"name":"x"},"spec":{"parallelism":10}}`,
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"ClusterWorkflowTemplate","metadata":{"name":"x"},"spec":{"parallelism":"ten"}}`},
		{"Workflow",
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"Workflow","metadata":{"name":"x"},"spec":{"entrypoint":"a"}}`,
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"Workflow","metadata":{"name":"x"},"spec":{"entrypoint":"a","bogus":1}}`},
		{"CronWorkflow",
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"CronWorkflow","metadata":{"name":"x"},"spec":{"schedules":["0 3 * * *"],"timezone":"UTC","workflowSpec":{"workflowTemplateRef":{"name":"deploy"}}}}`,
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"CronWorkflow","metadata":{"name":"x"},"spec":{"schedules":["0 3 * * *"],"timeZone":"UTC","workflowSpec":{"workflowTemplateRef":{"name":"deploy"}}}}`},
		{"Application",
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"a"},"spec":{"project":"p","destination":{"server":"s","namespace":"n"},"source":{"repoURL":"r","targetRevision":"v1"}}}`,
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"a"},"spec":{"project":"p","destination":{"server":"s","namespace":"n"},"source":{"repoURL":"r","targetRevison":"v1"}}}`},
		{"AppProject",
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"AppProject","metadata":{"name":"a"},"spec":{"sourceRepos":["r"]}}`,
			`{"apiVersion":"argoproj.io/v1alpha1","kind":"AppProject","metadata":{"name":"a"},"spec":{"sourceRepo":["r"]}}`},
		{"ConfigMap",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"true"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":true}}`},
	} {
		if err := Validate(tc.kind, []byte(tc.good)); err != nil {
			t.Errorf("%s: refused %s: %v", tc.kind, tc.good, err)
		}
		if err := Validate(tc.kind, []byte(tc.bad)); err == nil {
			t.Errorf("%s: accepted %s", tc.kind, tc.bad)
		}
	}
	if err := Validate("Deployment", []byte(`{}`)); !errors.Is(err, ErrNoSchema) {
		t.Errorf("Deployment: got %v, want ErrNoSchema", err)
	}
}
