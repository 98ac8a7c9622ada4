package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
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

// TestResumeResourcePermission: a resume skips the wait for a resource
// only after reading it (judgeResource), so Phase 0 asks for get on each
// waited-for resource, by name, with the plural API discovery gives
// (cronworkflows for argoproj.io/CronWorkflow, a CRD), as an optional
// permission. On the real API server: the least-privileged deployer
// without it gets a warning naming each get and the Role rule that would
// allow it, and the waits run (not skipped); granted exactly those
// rules, Phase 0 is quiet about them and both waits are skipped.
func TestResumeResourcePermission(t *testing.T) {
	f := newFixture(t, "resperm")
	hclPath := filepath.Join(f.dir, "platform.hcl")
	src, err := os.ReadFile(hclPath)
	if err != nil {
		t.Fatal(err)
	}
	db, api := "    source { path = \"apps/db\" }\n", "depends_on = [stack.data]"
	if !strings.Contains(string(src), db) || !strings.Contains(string(src), api) {
		t.Fatal("fixture changed: no db source or api dependency")
	}
	edited := strings.Replace(string(src), db, db+`    resource "config" {
      kind = "ConfigMap"
      name = "db-config"
    }
    resource "backup" {
      kind = "argoproj.io/CronWorkflow"
      name = "db-backup"
    }
`, 1)
	edited = strings.Replace(edited, api, "depends_on = [stack.data, app.db.resource.config, app.db.resource.backup]", 1)
	if err := os.WriteFile(hclPath, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	f.primitives(t)
	f.healthy(t)
	grantDeployer(t, f.s)
	ns := "data-" + f.name
	f.s.Namespace(t, ns)
	kc, dc := f.s.Clients(t)
	ctx := context.Background()
	u, err := dc.Resource(testenv.ApplicationGVR).Namespace(f.argocd).Get(ctx, "db", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u.Object["status"].(map[string]any)["resources"] = []any{
		map[string]any{"group": "", "version": "v1", "kind": "ConfigMap", "namespace": ns, "name": "db-config", "status": "Synced"},
		map[string]any{"group": "argoproj.io", "version": "v1alpha1", "kind": "CronWorkflow", "namespace": ns, "name": "db-backup", "status": "Synced"},
	}
	if _, err := dc.Resource(testenv.ApplicationGVR).Namespace(f.argocd).Update(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.s.Apply(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: db-config, namespace: "+ns+"}\n", "argocd-application-controller")
	f.s.Apply(t, "apiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {name: db-backup, namespace: "+ns+"}\nspec: {schedules: ['0 1 * * *'], workflowSpec: {entrypoint: main, templates: [{name: main, suspend: {}}]}}\n", "argocd-application-controller")
	// api has work (a new revision not yet compared); db has none.
	f.s.Retarget(t, f.argocd, "api", "v2")

	r := f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "logs", r.logs,
		`"component":"permissions-optional"`,
		"get configmaps db-config in namespace "+ns+" (to skip the wait wait-db-config of a resume when app.db.resource.config is already Healthy; without it the wait runs its pod; a Role rule in namespace "+ns+`: apiGroups [\"\"], resources [configmaps], resourceNames [db-config], verbs [get] lets platc skip it)`,
		"get cronworkflows.argoproj.io db-backup in namespace "+ns+" (to skip the wait wait-db-backup",
		`resources [cronworkflows], resourceNames [db-backup]`,
		"resource app.db.resource.config is not checked: its wait runs",
		"resource app.db.resource.backup is not checked: its wait runs")
	if strings.Contains(r.logs, "resource wait skipped") || strings.Contains(r.logs, "resource waits skipped") {
		t.Error("a wait was skipped without reading its resource")
	}

	// The rules the warning names, and nothing wider.
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "platc-resources", Namespace: ns}, Rules: []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"db-config"}},
		{Verbs: []string{"get"}, APIGroups: []string{"argoproj.io"}, Resources: []string{"cronworkflows"}, ResourceNames: []string{"db-backup"}},
	}}
	if _, err := kc.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: role.ObjectMeta,
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: "deployer"}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r = f.run(t, config.Deploy, testenv.DeployerToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	if strings.Contains(r.logs, "permissions-optional") {
		t.Errorf("Phase 0 still warns with the rules granted:\n%s", r.logs)
	}
	contains(t, "logs", r.logs, "2 resource waits skipped, without a pod: their resources are Healthy and their apps have nothing to do: wait-db-backup and wait-db-config")

	// validate asks for the same reads, to report the resources.
	r = f.run(t, config.Validate, testenv.DeployerToken, nil)
	if strings.Contains(r.logs, "permissions-optional") {
		t.Errorf("validate's Phase 0 warns with the rules granted:\n%s", r.logs)
	}
	contains(t, "report", r.out, `"resource":"app.db.resource.backup","kind":"argoproj.io/CronWorkflow","object":"`+ns+`/db-backup","wait":"healthy","health":"Healthy"`)
}
