package argocd_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/emit/internal/gitops"
	"github.com/platc/platc/internal/crdschema"
	"github.com/platc/platc/internal/golden"
)

// strictDecode decodes j into v, failing on unknown fields.
func strictDecode(j []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(j))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// validate checks one Kubernetes object: its kind's schema (which has
// additionalProperties: false below the root), no unknown top-level
// fields, and metadata that decodes strictly into ObjectMeta.
func validate(t *testing.T, where string, j []byte) string {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(j, &obj); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	kind, _ := obj["kind"].(string)
	switch err := crdschema.Validate(kind, j); {
	case errors.Is(err, crdschema.ErrNoSchema):
		t.Fatalf("%s: %v", where, err)
	case err != nil:
		t.Errorf("%s: %s does not validate: %v", where, kind, err)
	}
	for k := range obj {
		if !slices.Contains([]string{"apiVersion", "kind", "metadata", "spec", "data"}, k) {
			t.Errorf("%s: unknown top-level field %q", where, k)
		}
	}
	md, _ := json.Marshal(obj["metadata"])
	if err := strictDecode(md, &metav1.ObjectMeta{}); err != nil {
		t.Errorf("%s: metadata: %v", where, err)
	}
	return kind
}

// documents splits an emitted YAML file into its documents, as JSON.
func documents(t *testing.T, path string, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, doc := range strings.Split(string(data), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, j)
	}
	return out
}

// healthy adds health rules of each origin to p, so the values carry
// health customizations whatever the compiler's rule library holds.
func healthy(p *ir.Program) {
	p.Health = append(p.Health,
		&ir.HealthRule{Group: "", Kind: "PersistentVolumeClaim", Origin: ir.HealthUser, Lua: "hs = {}\nhs.status = \"Healthy\"\nreturn hs\n"},
		&ir.HealthRule{Group: "argoproj.io", Kind: "Rollout", Origin: ir.HealthArgoCD},
		&ir.HealthRule{Group: "vault.banzaicloud.com", Kind: "Vault", Origin: ir.HealthBuiltIn, UseOpenLibs: true,
			Lua: "local hs = {}\nif string.find(obj.status.state or \"\", \"ok\") then hs.status = \"Healthy\" else hs.status = \"Progressing\" end\nreturn hs\n"},
	)
}

// Every Application and AppProject the example platform produces is valid
// against Argo CD v3.5.1's CRD schemas, and the values give the argo-cd
// chart ConfigMap data the API server accepts.
func TestObjectsValidate(t *testing.T) {
	p := emittest.Example(t, "../..")
	healthy(p)
	files := emittest.Emit(t, p, argocd.Apps{}, argocd.Values{})
	kinds := map[string]int{}
	for _, path := range sortedKeys(files) {
		if path == gitops.ValuesFile {
			continue
		}
		for i, j := range documents(t, path, files[path]) {
			kinds[validate(t, path+"#"+strconv.Itoa(i), j)]++
		}
	}
	apps := 0
	for _, a := range p.Apps {
		if a.Source != nil {
			apps++
		}
	}
	// One per app with a source, plus platc-workflows, platc-events, root.
	if kinds["Application"] != apps+3 {
		t.Errorf("%d Applications, want %d", kinds["Application"], apps+3)
	}
	if kinds["AppProject"] != 2 {
		t.Errorf("%d AppProjects, want 2 (platc-orchestration and platform)", kinds["AppProject"])
	}

	// The chart writes configs.cm and configs.rbac into argocd-cm and
	// argocd-rbac-cm as they are, so every value must be a string.
	var values struct {
		Configs struct {
			CM   map[string]any `json:"cm"`
			RBAC map[string]any `json:"rbac"`
		} `json:"configs"`
	}
	j, err := yaml.YAMLToJSON(files[gitops.ValuesFile])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &values); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]map[string]any{"argocd-cm": values.Configs.CM, "argocd-rbac-cm": values.Configs.RBAC} {
		cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": data}
		j, _ := json.Marshal(cm)
		validate(t, name, j)
		if err := strictDecode(j, &corev1.ConfigMap{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := values.Configs.CM["resource.customizations.useOpenLibs.vault.banzaicloud.com_Vault"]; got != "true" {
		t.Errorf("useOpenLibs = %#v, want the string \"true\"", got)
	}
}

// The strictness is real: an Application with a misspelt field, or a
// ConfigMap with a boolean value, is refused.
func TestValidationRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"misspelt spec field": `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"a"},
			"spec":{"project":"p","destination":{"server":"s","namespace":"n"},"source":{"repoURL":"r","targetRevison":"v1"}}}`,
		"automated.enable": `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"a"},
			"spec":{"project":"p","destination":{"server":"s","namespace":"n"},"source":{"repoURL":"r"},"syncPolicy":{"automated":{"enable":false}}}}`,
		"boolean ConfigMap value": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"x":true}}`,
	} {
		var obj struct{ Kind string }
		if err := json.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		switch err := crdschema.Validate(obj.Kind, []byte(doc)); {
		case errors.Is(err, crdschema.ErrNoSchema):
			t.Fatalf("%s: %v", name, err)
		case err == nil:
			t.Errorf("%s: accepted", name)
		}
	}
}

// The recipe follows the declared Argo CD version: from v3.1 the root
// ignores only automated/enabled and apps that ask for automated sync
// carry it switched off; otherwise (older or undeclared) the root ignores
// the whole automated block and no app carries one. Either way nothing
// syncs automatically at creation (INV-2).
func TestRecipe(t *testing.T) {
	for _, tc := range []struct {
		version string
		pointer string
	}{
		{"v3.5.1", gitops.EnabledPointer},
		{"v3.1.0", gitops.EnabledPointer},
		{"3.2.0", gitops.EnabledPointer},
		{"v4.0.0", gitops.EnabledPointer},
		{"v3.0.12", gitops.AutomatedPointer},
		{"v2.13.0", gitops.AutomatedPointer},
		{"", gitops.AutomatedPointer},
		{"latest", gitops.AutomatedPointer},
	} {
		t.Run(tc.version, func(t *testing.T) {
			p := emittest.Example(t, "../..")
			p.Platform.ArgoCD.Version = tc.version
			root := gitops.Root(p)
			if got := root.Spec.IgnoreDifferences[0].JSONPointers[0]; got != tc.pointer {
				t.Errorf("root ignores %s, want %s", got, tc.pointer)
			}
			// Validate=false: see gitops.Root; the root's objects are platc's.
			if !slices.Equal(root.Spec.SyncPolicy.SyncOptions, []string{"RespectIgnoreDifferences=true", "Validate=false"}) {
				t.Errorf("root sync options %v", root.Spec.SyncPolicy.SyncOptions)
			}
			asked := 0
			for _, a := range p.Apps {
				app := gitops.App(p, a)
				if app == nil {
					continue
				}
				au := app.Spec.SyncPolicy.Automated
				switch {
				case tc.pointer == gitops.AutomatedPointer && au != nil:
					t.Errorf("%s: automated block %+v with the whole-block recipe", a.Name, au)
				case tc.pointer == gitops.EnabledPointer && a.Sync.Automated:
					asked++
					if au == nil || au.Enabled == nil || *au.Enabled || au.SelfHeal != a.Sync.SelfHeal || au.Prune != a.Sync.Prune {
						t.Errorf("%s: automated %+v, want enabled: false with the app's selfHeal and prune", a.Name, au)
					}
				case au != nil:
					t.Errorf("%s: automated %+v but the app does not ask for it", a.Name, au)
				}
			}
			if tc.pointer == gitops.EnabledPointer && asked == 0 {
				t.Fatal("the example has no app asking for automated sync")
			}
		})
	}
}

// The automation account may read the projects of the platform's apps
// (the argocd CLI reads an app's project; without it every step is
// denied, as the e2e environment showed), get, sync and delete in them,
// update the claims, namespaces and StatefulSets of their
// apps (teardown's volume policy), and update exactly the apps that ask
// for automated sync; nothing else.
func TestPolicy(t *testing.T) {
	p := emittest.Example(t, "../..")
	p.Apps[0].Project = "team"
	var want []string
	for _, pr := range []string{"platform", "team"} {
		want = append(want, "p, role:platc-orchestrator, projects, get, "+pr+", allow")
		for _, action := range []string{"get", "sync", "delete", "update//Namespace/*/*", "update//PersistentVolumeClaim/*/*", "update/apps/StatefulSet/*/*"} {
			want = append(want, "p, role:platc-orchestrator, applications, "+action+", "+pr+"/*, allow")
		}
	}
	var updates []string
	for _, a := range p.Apps {
		if a.Sync.Automated {
			updates = append(updates, "p, role:platc-orchestrator, applications, update, "+a.Project+"/"+a.Application+", allow")
		}
	}
	slices.Sort(updates)
	want = append(want, updates...)
	want = append(want, "g, platc, role:platc-orchestrator")
	got := strings.Split(strings.TrimSuffix(argocd.Policy(p), "\n"), "\n")
	if !slices.Equal(got, want) {
		t.Errorf("policy:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(updates) != 4 {
		t.Errorf("%d update lines; the example has 4 apps with automated sync", len(updates))
	}
}

// Health entries: Lua for user and built-in rules, keyed group_Kind (just
// Kind for core kinds), useOpenLibs as a string, nothing for Argo CD's own
// checks.
func TestHealthEntries(t *testing.T) {
	p := emittest.Example(t, "../..")
	p.Health = nil
	healthy(p)
	got := argocd.HealthEntries(p)
	want := []string{
		"resource.customizations.health.PersistentVolumeClaim",
		"resource.customizations.health.vault.banzaicloud.com_Vault",
		"resource.customizations.useOpenLibs.vault.banzaicloud.com_Vault",
	}
	if keys := sortedKeys(got); !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if got["resource.customizations.health.PersistentVolumeClaim"] != p.Health[0].Lua {
		t.Error("the Lua is not passed through unchanged")
	}
}

// The chart values switch the API server to plain HTTP exactly when the
// workflows are told to connect in plaintext, which the example (no
// server named) is by default.
func TestPlaintext(t *testing.T) {
	p := emittest.Example(t, "../..")
	if !p.Platform.ArgoCD.PlainText {
		t.Fatal("the example names no server, so its steps should default to plaintext")
	}
	configs := argocd.ChartValues(p)["configs"].(map[string]any)
	if got := configs["params"].(map[string]any)["server.insecure"]; got != true {
		t.Errorf("server.insecure = %v", got)
	}
	p.Platform.ArgoCD.PlainText = false
	configs = argocd.ChartValues(p)["configs"].(map[string]any)
	if _, ok := configs["params"]; ok {
		t.Error("params set without plaintext")
	}
}

// Building twice gives the same bytes (INV-3).
func TestDeterministic(t *testing.T) {
	p := emittest.Example(t, "../..")
	healthy(p)
	a := emittest.Emit(t, p, argocd.Apps{}, argocd.Values{})
	q := emittest.Example(t, "../..")
	healthy(q)
	b := emittest.Emit(t, q, argocd.Apps{}, argocd.Values{})
	for path, data := range a {
		if !bytes.Equal(data, b[path]) {
			t.Errorf("%s differs between two builds", path)
		}
	}
	if len(a) != len(b) {
		t.Errorf("%d files, then %d", len(a), len(b))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Every Application of the GitOps goldens, which between them use every
// part of the language that reaches an Application (several sources,
// ignore_differences, kustomize, directory and plugin options, Helm
// parameters, sync retry, managed namespace metadata, finalizers), is
// valid against Argo CD's CRD schema.
func TestGoldenApplicationsValidate(t *testing.T) {
	for _, c := range golden.Load(t, filepath.Join("..", "internal", "gitops", "testdata", "golden")) {
		for _, f := range c.Archive.Files {
			if f.Name != "platform.hcl" {
				continue
			}
			p := emittest.Compile(t, "platform.hcl", f.Data, "")
			files := emittest.Emit(t, p, argocd.Apps{})
			n := 0
			for _, path := range sortedKeys(files) {
				for i, j := range documents(t, path, files[path]) {
					validate(t, c.Name+"/"+path+"#"+strconv.Itoa(i), j)
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s: no objects", c.Name)
			}
		}
	}
}

// The reconciliation settings reach argocd-cm through the chart values,
// in the shape Argo CD reads an override (OverrideIgnoreDiff's
// jsonPointers and jqPathExpressions), and each jq path deletes what it
// names from an Application as Argo CD's normalizer runs it
// (util/argo/normalizers: gojq, del(<path>)), and nothing else.
func TestReconcileSettings(t *testing.T) {
	p := emittest.Example(t, "../..")
	cm := argocd.ChartValues(p)["configs"].(map[string]any)["cm"].(map[string]any)
	for k, v := range argocd.ReconcileSettings(p) {
		if cm[k] != v {
			t.Errorf("configs.cm[%q] = %v, want %v", k, cm[k], v)
		}
		if _, ok := v.(string); !ok {
			t.Errorf("%s is a %T; a ConfigMap holds strings", k, v)
		}
	}
	if d, err := time.ParseDuration(cm["timeout.reconciliation"].(string)); err != nil || d < 120*time.Second {
		t.Errorf("timeout.reconciliation %v (%v): want at least Argo CD's own 120 s", cm["timeout.reconciliation"], err)
	}
	decode := func(key string) ignoreOverride { return decodeOverride(t, cm, key) }
	if all := decode("resource.customizations.ignoreResourceUpdates.all"); !slices.Equal(all.JSONPointers, []string{"/status"}) {
		t.Errorf("ignoreResourceUpdates.all ignores %v, want only /status", all.JSONPointers)
	}
	app := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "a", "annotations": map[string]any{
			"argocd.argoproj.io/refresh": "normal", "platc.io/teardown-volumes": "retain",
		}},
		"spec":      map[string]any{"project": "p"},
		"operation": map[string]any{"sync": map[string]any{}},
	}
	for _, expr := range decode("resource.customizations.ignoreResourceUpdates.argoproj.io_Application").JQPathExpressions {
		q, err := gojq.Parse("del(" + expr + ")")
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		v, ok := q.Run(app).Next()
		if err, isErr := v.(error); !ok || isErr {
			t.Fatalf("%s: %v", expr, err)
		}
		app = v.(map[string]any)
	}
	want := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "a", "annotations": map[string]any{"platc.io/teardown-volumes": "retain"}},
		"spec":     map[string]any{"project": "p"},
	}
	if !reflect.DeepEqual(app, want) {
		t.Errorf("after the jq paths: %v\nwant %v (refresh and operation gone, spec and other annotations kept)", app, want)
	}
	// The one spec field ignored is the automated sync the steps switch
	// on, under either recipe, and only because the root's own
	// ignoreDifferences leave it out of its comparison: an update the
	// root would compare must still requeue it.
	for _, version := range []string{"v3.0.12", "v3.2.6"} {
		q := *p
		q.Platform.ArgoCD.Version = version
		cm := argocd.ChartValues(&q)["configs"].(map[string]any)["cm"].(map[string]any)
		pointers := decodeOverride(t, cm, "resource.customizations.ignoreResourceUpdates.argoproj.io_Application").JSONPointers
		if !slices.Equal(pointers, []string{gitops.IgnorePointer(&q)}) {
			t.Errorf("Argo CD %s: the Application updates ignore %v, want only %s", version, pointers, gitops.IgnorePointer(&q))
		}
		var rootIgnores []string
		for _, d := range gitops.Root(&q).Spec.IgnoreDifferences {
			if d.Group == "argoproj.io" && d.Kind == "Application" {
				rootIgnores = append(rootIgnores, d.JSONPointers...)
			}
		}
		for _, ptr := range pointers {
			if !slices.Contains(rootIgnores, ptr) {
				t.Errorf("Argo CD %s: updates of %s are ignored, but the root compares it (its ignoreDifferences: %v)", version, ptr, rootIgnores)
			}
		}
	}
}

// ignoreOverride is an ignoreResourceUpdates entry as Argo CD reads it
// (OverrideIgnoreDiff).
type ignoreOverride struct {
	JSONPointers      []string `json:"jsonPointers"`
	JQPathExpressions []string `json:"jqPathExpressions"`
}

func decodeOverride(t *testing.T, cm map[string]any, key string) ignoreOverride {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(cm[key].(string)))
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	var o ignoreOverride
	if err := strictDecode(j, &o); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return o
}
