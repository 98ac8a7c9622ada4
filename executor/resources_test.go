package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
)

// TestValidateResourceNodes (RFC 5.1, 7.2): validate reports each
// resource node as the deploy's wait step judges it, on the real API
// server: a ConfigMap (no health: ready once it exists), a
// WorkflowTemplate judged by the platform's health rule run as Argo CD
// runs it, and a Service judged by Argo CD's own check through its app's
// health. The Applications' status.resources are written as Argo CD's
// controller writes them. A node that is not ready makes the stack and
// platform Degraded and validate degraded (exit 2), though every app is
// Healthy.
func TestValidateResourceNodes(t *testing.T) {
	f := newFixture(t, "resnodes")
	hclPath := filepath.Join(f.dir, "platform.hcl")
	src, err := os.ReadFile(hclPath)
	if err != nil {
		t.Fatal(err)
	}
	db, cache := "    source { path = \"apps/db\" }\n", "    source { path = \"apps/cache\" }\n"
	if !strings.Contains(string(src), db) || !strings.Contains(string(src), cache) {
		t.Fatal("fixture changed: no db or cache source")
	}
	edited := strings.Replace(string(src), db, db+`    resource "config" {
      kind = "ConfigMap"
      name = "db-config"
    }
    resource "template" {
      kind = "argoproj.io/WorkflowTemplate"
      name = "db-template"
    }
`, 1)
	edited = strings.Replace(edited, cache, cache+`    resource "service" {
      kind = "Service"
      name = "cache"
    }
`, 1)
	edited += `
health "argoproj.io/WorkflowTemplate" {
  degraded = obj.metadata.labels.state == "broken"
  healthy  = obj.metadata.labels.state == "ready"
  message  = "state is ${obj.metadata.labels.state}"
}
`
	if err := os.WriteFile(hclPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)
	f.healthy(t)
	ns := "data-" + f.name
	f.s.Namespace(t, ns)
	managed := func(app string, res ...map[string]any) {
		t.Helper()
		_, dc := f.s.Clients(t)
		ctx := context.Background()
		u, err := dc.Resource(testenv.ApplicationGVR).Namespace(f.argocd).Get(ctx, app, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		list := make([]any, len(res))
		for i, r := range res {
			list[i] = r
		}
		u.Object["status"].(map[string]any)["resources"] = list
		if _, err := dc.Resource(testenv.ApplicationGVR).Namespace(f.argocd).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(group, kind, name string) map[string]any {
		return map[string]any{"group": group, "version": "v1", "kind": kind, "namespace": ns, "name": name, "status": "Synced"}
	}
	managed("db", entry("", "ConfigMap", "db-config"), entry("argoproj.io", "WorkflowTemplate", "db-template"))
	managed("cache", entry("", "Service", "cache"))

	// Nothing of it exists yet: three Missing nodes, Degraded stack.
	r := f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "report", r.out,
		`{"app":"db","stack":"data","resource":"app.db.resource.config","kind":"ConfigMap","object":"`+ns+`/db-config","wait":"exists","health":"Missing","judged_by":"existence","message":"ConfigMap `+ns+`/db-config does not exist"}`,
		`"resource":"app.cache.resource.service","kind":"Service","object":"`+ns+`/cache","wait":"healthy","health":"Missing"`,
		`"stacks":[{"stack":"data","health":"Degraded"`, `"health":"Degraded"`,
		"but 3 resource nodes not ready")

	f.s.Apply(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: db-config, namespace: "+ns+"}\n", "argocd-application-controller")
	f.s.Apply(t, "apiVersion: v1\nkind: Service\nmetadata: {name: cache, namespace: "+ns+"}\nspec: {ports: [{port: 80}]}\n", "argocd-application-controller")
	f.s.Apply(t, "apiVersion: argoproj.io/v1alpha1\nkind: WorkflowTemplate\nmetadata: {name: db-template, namespace: "+ns+", labels: {state: broken}}\nspec: {entrypoint: main, templates: [{name: main, suspend: {}}]}\n", "argocd-application-controller")
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.Partial, "degraded")
	contains(t, "report", r.out,
		`"resource":"app.db.resource.config","kind":"ConfigMap","object":"`+ns+`/db-config","wait":"exists","health":"Healthy","judged_by":"existence (its kind has no health)"`,
		`"resource":"app.db.resource.template","kind":"argoproj.io/WorkflowTemplate","object":"`+ns+`/db-template","wait":"healthy","health":"Degraded","judged_by":"the user health rule, as Argo CD runs it","message":"state is broken"`,
		`"resource":"app.cache.resource.service","kind":"Service","object":"`+ns+`/cache","wait":"healthy","health":"Healthy","judged_by":"the app's health`,
		"but 1 resource node not ready: app.db.resource.template (Degraded)")

	f.s.Apply(t, "apiVersion: argoproj.io/v1alpha1\nkind: WorkflowTemplate\nmetadata: {name: db-template, namespace: "+ns+", labels: {state: ready}}\nspec: {entrypoint: main, templates: [{name: main, suspend: {}}]}\n", "argocd-application-controller")
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	expect(t, r, exitcode.OK, "healthy")
	contains(t, "report", r.out, `"health":"Healthy","judged_by":"the user health rule, as Argo CD runs it","message":"state is ready"`, `"stacks":[{"stack":"data","health":"Healthy","apps":{"Healthy":5}}]`)
}
