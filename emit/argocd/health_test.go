package argocd_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/health/luavm"
	"github.com/platc/platc/internal/golden"
	"github.com/platc/platc/lang"
)

func compileFile(t *testing.T, path string, env string) *ir.Program {
	t.Helper()
	m, diags := lang.Parse(path)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{Env: env})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return p
}

func emitHealth(t *testing.T, p *ir.Program) []byte {
	t.Helper()
	files, err := argocd.Health{}.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "argocd/health.yaml" {
		t.Fatalf("want argocd/health.yaml, got %v", files)
	}
	return files[0].Data
}

// TestHealthGolden pins health.yaml for small platforms: layout, keys,
// the useOpenLibs string, and that Argo CD's own kinds emit nothing.
func TestHealthGolden(t *testing.T) {
	for _, c := range golden.Load(t, "testdata/health") {
		t.Run(c.Name, func(t *testing.T) {
			dir := c.WriteInputs(t, t.TempDir())
			p := compileFile(t, dir+"/platform.hcl", "")
			c.Check(t, map[string]string{"argocd/health.yaml": string(emitHealth(t, p))}, golden.Update())
		})
	}
}

// TestHealthExample checks health.yaml of the example platform the way
// the API server and Argo CD read it: it decodes strictly into a core
// ConfigMap, every key is a valid ConfigMap key, and every script, read
// back from the YAML, gives each sample of its built-in rule the status
// and message the rule's tests want, in a VM set up as Argo CD sets it up.
func TestHealthExample(t *testing.T) {
	p := compileFile(t, "../../examples/platform.hcl", "")
	data := emitHealth(t, p)
	if !bytes.HasPrefix(data, []byte(emit.Header)) {
		t.Fatal("health.yaml does not start with the generated-file header")
	}
	if again := emitHealth(t, p); !bytes.Equal(data, again) {
		t.Fatal("health.yaml differs between two runs")
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(data, &cm); err != nil {
		t.Fatalf("health.yaml is not a strict ConfigMap: %v", err)
	}
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Name != "argocd-cm" || cm.Namespace != p.Platform.ArgoCD.Namespace || cm.Labels["app.kubernetes.io/part-of"] != "argocd" {
		t.Errorf("not Argo CD's argocd-cm: %+v", cm.ObjectMeta)
	}
	for k, v := range cm.Data {
		if errs := validation.IsConfigMapKey(k); len(errs) > 0 {
			t.Errorf("invalid ConfigMap key %q: %v", k, errs)
		}
		if strings.HasPrefix(k, "resource.customizations.useOpenLibs.") && v != "true" {
			t.Errorf("%s = %q, want the string \"true\"", k, v)
		}
		if !strings.HasPrefix(k, "resource.customizations.health.") && !strings.HasPrefix(k, "resource.customizations.useOpenLibs.") {
			t.Errorf("unexpected key %q", k)
		}
	}

	runs := 0
	for _, h := range p.Health {
		key := h.Group + "_" + h.Kind
		script, ok := cm.Data["resource.customizations.health."+key]
		if h.Origin == ir.HealthArgoCD {
			if ok {
				t.Errorf("%s has Argo CD's own check but platc emitted one", h.Key())
			}
			continue
		}
		if !ok {
			t.Errorf("no script for %s", h.Key())
			continue
		}
		openLibs := cm.Data["resource.customizations.useOpenLibs."+key] == "true"
		if openLibs != h.UseOpenLibs {
			t.Errorf("%s: useOpenLibs %v, rule says %v", h.Key(), openLibs, h.UseOpenLibs)
		}
		b := builtin.Rule(h.Key())
		if h.Origin != ir.HealthBuiltIn || b == nil {
			continue
		}
		tests, diags := health.Tests(b)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		for _, tc := range tests {
			if tc.Env != nil {
				continue // the example's environment sets no health setting
			}
			y, err := builtin.ReadFile(tc.Object)
			if err != nil {
				t.Fatal(err)
			}
			j, err := yaml.YAMLToJSON(y)
			if err != nil {
				t.Fatal(err)
			}
			got, err := luavm.Run(script, openLibs, j)
			if err != nil {
				t.Errorf("%s %s: the emitted script fails: %v", h.Key(), tc.Name, err)
				continue
			}
			if got.Status != tc.Want || (tc.HasWantMessage && got.Message != tc.WantMessage) {
				t.Errorf("%s %s: emitted script gives %s %q, want %s %q", h.Key(), tc.Name, got.Status, got.Message, tc.Want, tc.WantMessage)
			}
			runs++
		}
	}
	if runs < 40 {
		t.Errorf("only %d sample runs; the example should exercise most built-in rules", runs)
	}
	t.Logf("%d emitted scripts run on %d samples", len(cm.Data), runs)
	kinds := []string{}
	for _, h := range p.Health {
		kinds = append(kinds, h.Key()+"="+string(h.Origin))
	}
	if !slices.Contains(kinds, "argoproj.io/Application=built-in") {
		t.Errorf("the Application rule is missing: %v", kinds)
	}
}

// health.yaml and the Helm values carry the same health entries.
func TestHealthMatchesValues(t *testing.T) {
	p := compileFile(t, "../../examples/platform.hcl", "")
	cm := argocd.HealthConfigMap(p)
	values := argocd.HealthEntries(p)
	if len(values) != len(cm.Data) {
		t.Fatalf("values.yaml has %d health entries, health.yaml %d", len(values), len(cm.Data))
	}
	for k, v := range cm.Data {
		if values[k] != v {
			t.Errorf("%s differs between health.yaml and values.yaml", k)
		}
	}
}
