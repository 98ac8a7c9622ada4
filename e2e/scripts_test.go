package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// stepResult is one step's run outside a workflow.
type stepResult struct {
	code    int
	out     string
	dir     string
	outputs map[string]string
}

// step runs template name, taken from the ClusterWorkflowTemplate platc
// generated, from the step image (bash and the real argocd CLI for a
// script, platc step for sync-and-wait) with the automation account's
// token against the real Argo CD: what a step pod runs, without the
// workflow around it. env holds the template's inputs as the pod's
// environment would.
func (s *scenario) step(name string, env map[string]string) stepResult {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.pl.Generated, "workflows", "templates.yaml"))
	if err != nil {
		s.t.Fatal(err)
	}
	var cwt wfv1.ClusterWorkflowTemplate
	if err := yaml.Unmarshal(b, &cwt); err != nil {
		s.t.Fatal(err)
	}
	var tmpl *wfv1.Template
	for i := range cwt.Spec.Templates {
		if cwt.Spec.Templates[i].Name == name {
			tmpl = &cwt.Spec.Templates[i]
		}
	}
	if tmpl == nil || tmpl.Script == nil && tmpl.Container == nil {
		s.t.Fatalf("no script or container template %q in the generated templates", name)
	}
	ref := s.pl.Handoff
	secret, err := s.env.Kube.CoreV1().Secrets(ref.Namespace).Get(s.ctx, ref.SecretName, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	// As in a step pod: the step image's binaries only, the template's
	// user, and only its /tmp emptyDir writable (steps.go).
	dir, err := os.MkdirTemp(filepath.Join(s.env.node, "pods"), "step-")
	if err != nil {
		s.t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		s.t.Fatal(err)
	}
	var c *corev1.Container
	var argv []string
	if tmpl.Container != nil {
		c = tmpl.Container
		argv = append(append(argv, c.Command...), c.Args...)
	} else {
		c = &tmpl.Script.Container
		script := filepath.Join(s.env.node, "pods", filepath.Base(dir)+".script")
		if err := os.WriteFile(script, []byte(tmpl.Script.Source), 0o644); err != nil {
			s.t.Fatal(err)
		}
		argv = []string{c.Command[0], script}
	}
	cred, cfgErr := s.env.podUser(&corev1.Pod{}, &corev1.Container{SecurityContext: c.SecurityContext})
	if cfgErr != "" {
		s.t.Fatal(cfgErr)
	}
	bin, err := lookPathIn(argv[0], s.env.imageBin)
	if err != nil {
		s.t.Fatal(err)
	}
	cmd := exec.CommandContext(s.ctx, bin, argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + s.env.imageBin, "HOME=" + dir, "PLATC_STEP_DIR=" + dir,
		"ALL_PROXY=" + s.env.net.SOCKSURL(),
		"ARGOCD_AUTH_TOKEN=" + string(secret.Data[ref.Key])}
	for _, e := range c.Env {
		if e.ValueFrom == nil && !strings.Contains(e.Value, "{{") {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value) // ARGOCD_SERVER, ARGOCD_OPTS
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	r := stepResult{dir: dir, outputs: map[string]string{}}
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		s.t.Fatal(err)
	}
	r.out = out.String()
	for _, p := range tmpl.Outputs.Parameters {
		if p.ValueFrom != nil && p.ValueFrom.Path != "" {
			if b, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(p.ValueFrom.Path, "/tmp/"))); err == nil {
				r.outputs[p.Name] = strings.TrimSuffix(string(b), "\n") // as argoexec reads it
			}
		}
	}
	return r
}

func (r stepResult) want(t *testing.T, code int, contains ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d; output:\n%s", r.code, code, r.out)
	}
	for _, c := range contains {
		if !strings.Contains(r.out, c) {
			t.Errorf("output lacks %q:\n%s", c, r.out)
		}
	}
}

// The steps (scripts with the real argocd CLI, and platc step) against
// the real Argo CD server, one situation each, on the shop platform. Each
// case names what it guards.
func TestStepScripts(t *testing.T) {
	s := start(t, shop)
	p := s.pl.Program
	project := p.Apps[0].Project
	app := func(name string) map[string]string {
		a := p.App(name)
		return map[string]string{"APP": a.Application, "PROJECT": a.Project}
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}

	t.Run("sync-and-wait converges an app, then leaves it alone", func(t *testing.T) {
		env := with(app("network"), "SYNC_TIMEOUT", "60", "HEALTH_TIMEOUT", "60", "EXPECT_REVISION", "1.0.0")
		s.step("sync-and-wait", env).want(t, 0, "syncing", "Synced and Healthy")
		mark := s.pl.Timeline.Mark()
		s.step("sync-and-wait", env).want(t, 0, "nothing to do")
		s.settle()
		wantNone(t, "sync operations on a converged app (INV-6)", s.started(s.pl.Timeline.Since(mark)))
	})

	t.Run("check-healthy reports health and sync", func(t *testing.T) {
		r := s.step("check-healthy", app("network"))
		r.want(t, 0, "health Healthy, sync Synced")
		if r.outputs["health"] != "Healthy" || r.outputs["sync"] != "Synced" {
			t.Errorf("outputs %v", r.outputs)
		}
		r = s.step("check-healthy", app("web"))
		r.want(t, 1)
		if r.outputs["sync"] != "OutOfSync" {
			t.Errorf("outputs %v for an app never synced", r.outputs)
		}
	})

	t.Run("sync-and-wait switches automated sync on only where the HCL asks", func(t *testing.T) {
		// network does not ask: least privilege refuses the update, and
		// the step fails (retried) rather than pass without it.
		r := s.step("sync-and-wait", with(app("network"), "SYNC_TIMEOUT", "60", "HEALTH_TIMEOUT", "60", "EXPECT_REVISION", "1.0.0",
			"AUTO_SYNC", "true", "SELF_HEAL", "true", "PRUNE", "false"))
		if r.code != 1 || !strings.Contains(r.out, "permission denied") {
			t.Errorf("automated sync switched on for an app whose HCL does not ask for it: exit %d\n%s", r.code, r.out)
		}
		// web asks: converge what it depends on, then web, which is
		// switched on as it converges.
		for _, dep := range []string{"database", "api"} {
			s.step("sync-and-wait", with(app(dep), "SYNC_TIMEOUT", "60", "HEALTH_TIMEOUT", "120")).want(t, 0, "Synced and Healthy")
		}
		auto := with(app("web"), "SYNC_TIMEOUT", "60", "HEALTH_TIMEOUT", "120", "AUTO_SYNC", "true", "SELF_HEAL", "true", "PRUNE", "false")
		s.step("sync-and-wait", auto).want(t, 0, "syncing", "Synced and Healthy", "turning on automated sync (self-heal true, prune false)")
		u, err := s.env.Dynamic.Resource(applicationGVR).Namespace(p.Platform.ArgoCD.Namespace).Get(s.ctx, p.App("web").Application, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		selfHeal, _, _ := unstructured.NestedBool(u.Object, "spec", "syncPolicy", "automated", "selfHeal")
		prune, _, _ := unstructured.NestedBool(u.Object, "spec", "syncPolicy", "automated", "prune")
		if !selfHeal || prune {
			t.Errorf("web's automated sync: selfHeal %t, prune %t", selfHeal, prune)
		}
		// Once on, a step changes nothing more.
		r = s.step("sync-and-wait", auto)
		r.want(t, 0, "nothing to do")
		if strings.Contains(r.out, "turning on") {
			t.Errorf("switched on twice:\n%s", r.out)
		}
	})

	t.Run("sync-and-wait only waits under automated sync", func(t *testing.T) {
		// web is not at the revision asked for, and automated sync is on:
		// the step must not start a sync of its own.
		env := with(app("web"), "SYNC_TIMEOUT", "60", "HEALTH_TIMEOUT", "60", "EXPECT_REVISION", "0.0.0-not-this")
		mark := s.pl.Timeline.Mark()
		s.step("sync-and-wait", env).want(t, 0, "automated sync is on; waiting")
		s.settle()
		wantNone(t, "sync operations started by a step under automated sync", s.started(s.pl.Timeline.Since(mark)))
	})

	t.Run("wait-resource reads the real resource tree", func(t *testing.T) {
		// database was converged above: its Database is Healthy by the
		// platform's rule, as Argo CD 3 reports it in the resource tree
		// (not in the Application's status). A misspelt name waits out its
		// timeout and names the Databases there are; a kind without health
		// in exists mode is found by its existence.
		db := with(app("database"), "GROUP", "example.com", "KIND", "Database", "NAME", "database", "NAMESPACE", "database", "WAIT", "healthy", "TIMEOUT", "60")
		s.step("wait-resource", db).want(t, 0, "Healthy")
		s.step("wait-resource", with(db, "NAME", "databse", "TIMEOUT", "3")).want(t, 10, "still not Healthy after 3s", "database/database (Healthy)")
		s.step("wait-resource", with(db, "GROUP", "apps", "KIND", "Deployment", "WAIT", "exists")).want(t, 0, "exists")
	})

	// apps is find-claims' APPS for the named apps, each with its own
	// policy as the teardown template passes it.
	apps := func(names ...string) string {
		var list []map[string]string
		for _, n := range names {
			a := p.App(n)
			list = append(list, map[string]string{"application": a.Application, "project": a.Project,
				"volumes": string(a.Teardown.Volumes), "timeout": "60"})
		}
		b, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("find-claims on an app without claims", func(t *testing.T) {
		// Issue 12: get-resource prints nothing for no claims; the script
		// used to fail on grep's empty result.
		r := s.step("find-claims", map[string]string{"APPS": apps("network"), "VOLUMES_OVERRIDE": "snapshot"})
		r.want(t, 0, "network: 0 claim(s) to snapshot", "0 claim(s) to snapshot before the first deletion")
		if r.outputs["claims"] != "[]" {
			t.Errorf("outputs %v", r.outputs)
		}
	})

	t.Run("find-claims lists the claims to snapshot, by policy", func(t *testing.T) {
		s.step("sync-and-wait", with(app("cache"), "SYNC_TIMEOUT", "60", "HEALTH_TIMEOUT", "60")).want(t, 0)
		// cache's own policy is not snapshot: per-app finds nothing,
		// the run's override finds its claim.
		r := s.step("find-claims", map[string]string{"APPS": apps("cache", "network"), "VOLUMES_OVERRIDE": "per-app"})
		r.want(t, 0, "0 claim(s) to snapshot before the first deletion")
		r = s.step("find-claims", map[string]string{"APPS": apps("cache", "network"), "VOLUMES_OVERRIDE": "snapshot"})
		r.want(t, 0, "cache: 1 claim(s) to snapshot", "1 claim(s) to snapshot before the first deletion")
		if !strings.Contains(r.outputs["claims"], `{"name":"data-cache","namespace":"cache","application":"`+p.App("cache").Application+`","timeout":"60"}`) {
			t.Errorf("claims %s", r.outputs["claims"])
		}
		r = s.step("inspect-volumes", with(app("cache"), "VOLUMES", "retain", "VOLUMES_OVERRIDE", "snapshot"))
		r.want(t, 0, "volume policy snapshot")
		if r.outputs["policy"] != "snapshot" {
			t.Errorf("outputs %v", r.outputs)
		}
	})

	t.Run("delete-application keeps a retained claim", func(t *testing.T) {
		s.step("delete-application", with(app("cache"), "POLICY", "retain", "TIMEOUT", "60")).want(t, 0, "keeping PersistentVolumeClaim", "deleted")
		pvc, err := s.env.Kube.CoreV1().PersistentVolumeClaims("cache").Get(s.ctx, "data-cache", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the retained claim is gone: %v", err)
		}
		if pvc.Annotations["argocd.argoproj.io/sync-options"] != "Delete=false" {
			t.Errorf("claim annotations %v", pvc.Annotations)
		}
	})

	t.Run("delete-application on an app never deployed", func(t *testing.T) {
		// Issue 12: metrics' claim is listed in .status.resources but was
		// never created; patching it answered "no matching resource
		// found" and failed the step.
		s.step("delete-application", with(app("metrics"), "POLICY", "retain", "TIMEOUT", "60")).want(t, 0, "deleted")
	})

	t.Run("delete-application when already gone", func(t *testing.T) {
		s.step("delete-application", with(app("metrics"), "POLICY", "retain", "TIMEOUT", "60")).want(t, 0, "already gone")
	})

	t.Run("check-absent", func(t *testing.T) {
		s.step("check-absent", app("metrics")).want(t, 0, "absent")
		s.step("check-absent", app("network")).want(t, 1, "still exists")
	})

	t.Run("orphan-report names Applications the platform does not declare", func(t *testing.T) {
		s.orphan("left-behind")
		apps := fmt.Sprintf(`[%q,%q]`, "cache", "metrics") // already removed
		r := s.step("orphan-report", map[string]string{"APPLICATIONS": apps, "PROJECTS": fmt.Sprintf("[%q]", project), "IGNORE": "[]", "KEEP": "[]"})
		if r.code != 2 || !strings.Contains(r.outputs["orphans"], "left-behind") {
			t.Errorf("exit %d, orphans %s\n%s", r.code, r.outputs["orphans"], r.out)
		}
	})

	// A list of Applications too long for one environment variable is
	// passed in chunks (docs/workflows.md, "Long lists of
	// Applications"); here the shop's, cut in two, against the real
	// listing of the real Argo CD.
	var names, projects []string
	for _, a := range p.Apps {
		names = append(names, a.Application)
		if !slices.Contains(projects, a.Project) {
			projects = append(projects, a.Project)
		}
	}
	slices.Sort(names)
	slices.Sort(projects)
	asJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	chunks := [][]string{names[:len(names)/2], names[len(names)/2:]}
	readOut := func(r stepResult, name string) string {
		b, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil {
			t.Fatalf("%s not written: %v\n%s", name, err, r.out)
		}
		return strings.TrimSpace(string(b))
	}

	t.Run("orphan-report in chunks decides as one step over the whole list", func(t *testing.T) {
		one := s.step("orphan-report", map[string]string{"APPLICATIONS": asJSON(names), "PROJECTS": asJSON(projects), "IGNORE": "[]", "KEEP": "[]"})
		var rows []string
		for _, c := range chunks {
			r := s.step("orphan-report", map[string]string{"APPLICATIONS": asJSON(c), "PROJECTS": asJSON(projects), "ROWS_ONLY": "1"})
			r.want(t, 0, "left in the platform's projects")
			rows = append(rows, readOut(r, "rows"))
		}
		two := s.step("orphan-report", map[string]string{"APPLICATIONS": "[]", "PROJECTS": "[]", "IGNORE": "[]", "KEEP": "[]", "ROWS": "[" + strings.Join(rows, ",") + "]"})
		type row struct {
			Project, Application string
			Platform             bool
		}
		sorted := func(s string) []row {
			var out []row
			if err := json.Unmarshal([]byte(s), &out); err != nil {
				t.Fatalf("%v: %s", err, s)
			}
			slices.SortFunc(out, func(a, b row) int { return strings.Compare(a.Project+"/"+a.Application, b.Project+"/"+b.Application) })
			return out
		}
		if one.code != two.code || !slices.Equal(sorted(one.outputs["orphans"]), sorted(two.outputs["orphans"])) {
			t.Errorf("one step: exit %d, %s\nin chunks: exit %d, %s\n%s", one.code, one.outputs["orphans"], two.code, two.outputs["orphans"], two.out)
		}
		// Platform Applications are still there (network, …): both fail.
		if one.code != 1 || !strings.Contains(two.out, "platform Applications still exist") {
			t.Errorf("exit %d with platform Applications left:\n%s", one.code, two.out)
		}
	})

	t.Run("suspend-parents in chunks finds what one step over the whole list finds", func(t *testing.T) {
		// The one step may switch a parent to manual sync; the chunked
		// run then finds it already manual, with the same parents.
		one := s.step("suspend-parents", map[string]string{"APPLICATIONS": asJSON(names), "PROJECTS": asJSON(projects)})
		var found, managing []string
		for _, c := range chunks {
			r := s.step("suspend-parents", map[string]string{"APPLICATIONS": asJSON(c), "PROJECTS": asJSON(projects), "FIND_ONLY": "1"})
			r.want(t, 0, "possible parent(s) of this chunk's Applications")
			found = append(found, readOut(r, "candidates"))
			managing = append(managing, readOut(r, "managing"))
		}
		two := s.step("suspend-parents", map[string]string{"APPLICATIONS": "[]", "PROJECTS": "[]",
			"FOUND": "[" + strings.Join(found, ",") + "]", "MANAGING": "[" + strings.Join(managing, ",") + "]"})
		if two.code != 0 {
			t.Errorf("exit %d\n%s", two.code, two.out)
		}
		if one.outputs["parents"] != two.outputs["parents"] {
			t.Errorf("one step found %s, the chunks %s\n%s", one.outputs["parents"], two.outputs["parents"], two.out)
		}
		t.Logf("parents: %s", two.outputs["parents"])
	})

	t.Run("values are data", func(t *testing.T) {
		// Whatever an Application's name holds, it never runs.
		evil := `web"; touch pwned; echo "$(touch pwned2)` + "`touch pwned3`"
		r := s.step("check-healthy", map[string]string{"APP": evil, "PROJECT": project})
		if r.code == 0 {
			t.Errorf("check-healthy succeeded for an Application that does not exist:\n%s", r.out)
		}
		for _, f := range []string{"pwned", "pwned2", "pwned3"} {
			if _, err := os.Stat(filepath.Join(r.dir, f)); err == nil {
				t.Errorf("%s was created: a value ran as code", f)
			}
		}
		// platc step puts the name in a URL path: it takes only what
		// Kubernetes allows in a name, so no value names another path.
		r = s.step("sync-and-wait", map[string]string{"APP": evil + "/../web", "SYNC_TIMEOUT": "10", "HEALTH_TIMEOUT": "10"})
		if r.code != 10 || !strings.Contains(r.out, "not a valid Application name") {
			t.Errorf("sync-and-wait of an Application that does not exist: exit %d\n%s", r.code, r.out)
		}
	})
}
