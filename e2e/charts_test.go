package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/emit/ansible"
)

// moduleSources are the environment's binaries (PLATC_E2E_BIN, helm among
// them) and the components' module sources (PLATC_E2E_SRC, by default
// beside them); the test is skipped without them.
func moduleSources(t *testing.T) (bin, src string) {
	bin = os.Getenv("PLATC_E2E_BIN")
	if bin == "" {
		t.Skip("needs PLATC_E2E_BIN (the environment's helm) and the module sources beside it")
	}
	src = os.Getenv("PLATC_E2E_SRC")
	if src == "" {
		src = filepath.Join(bin, "..", "src")
	}
	return bin, src
}

// The stand-in charts, rendered by the real Helm CLI with the values the
// example's generated bootstrap gives them, write what Argo CD and the
// workflow controller must read, and argocd-apps renders exactly the
// AppProjects and root Application platc also writes to argocd/ (the
// values are the same objects in the chart's form). Needs the
// environment's helm and module sources, not an environment.
func TestStandInCharts(t *testing.T) {
	bin, src := moduleSources(t)
	gen := generatedExample(t)
	groupVars := gen[ansible.Dir+"/inventories/"+string(gen["env"])+"/group_vars/all.yml"]
	charts, err := standInCharts(groupVars, src)
	if err != nil {
		t.Fatal(err)
	}
	var vars map[string]any
	if err := yaml.Unmarshal(unsafeTags(groupVars), &vars); err != nil {
		t.Fatal(err)
	}
	render := func(c standInChart, values []byte) map[string]map[string]any {
		t.Helper()
		dir := t.TempDir()
		files, err := c.chartFiles()
		if err != nil {
			t.Fatal(err)
		}
		if err := writeTree(filepath.Join(dir, c.name), files); err != nil {
			t.Fatal(err)
		}
		vf := filepath.Join(dir, "values.yaml")
		if err := os.WriteFile(vf, values, 0o600); err != nil {
			t.Fatal(err)
		}
		release, _ := vars[c.prefix+"_release_name"].(string)
		ns, _ := vars[c.prefix+"_namespace"].(string)
		if ns == "" {
			ns, _ = vars["argocd_namespace"].(string)
		}
		cmd := exec.Command(filepath.Join(bin, "helm"), "template", release, filepath.Join(dir, c.name), "--namespace", ns, "--values", vf)
		cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helm template %s: %v\n%s", c.name, err, stderr.String())
		}
		objs := map[string]map[string]any{}
		for _, doc := range bytes.Split(out, []byte("\n---")) {
			var o map[string]any
			if err := yaml.Unmarshal(doc, &o); err != nil {
				t.Fatalf("%s renders YAML that does not parse: %v\n%s", c.name, err, doc)
			}
			if o == nil {
				continue
			}
			md, _ := o["metadata"].(map[string]any)
			objs[o["kind"].(string)+"/"+md["name"].(string)] = o
		}
		return objs
	}
	valuesOf := func(prefix string) []byte {
		b, err := json.Marshal(vars[prefix+"_values"])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	byPrefix := map[string]standInChart{}
	for _, c := range charts {
		byPrefix[c.prefix] = c
	}

	t.Run("argo-cd", func(t *testing.T) {
		values := gen["argocd/values.yaml"]
		objs := render(byPrefix["argocd"], values)
		var v struct {
			Configs struct {
				CM   map[string]string `json:"cm"`
				RBAC map[string]string `json:"rbac"`
			} `json:"configs"`
		}
		if err := yaml.Unmarshal(values, &v); err != nil {
			t.Fatal(err)
		}
		data := func(name string) map[string]any {
			o := objs["ConfigMap/"+name]
			if o == nil {
				t.Fatalf("no ConfigMap %s", name)
			}
			d, _ := o["data"].(map[string]any)
			return d
		}
		for _, c := range []struct {
			cm   string
			want map[string]string
		}{{"argocd-cm", v.Configs.CM}, {"argocd-rbac-cm", v.Configs.RBAC}} {
			got := data(c.cm)
			if len(got) != len(c.want) {
				t.Errorf("%s has %d keys, the values %d", c.cm, len(got), len(c.want))
			}
			for k, want := range c.want {
				// The last key of a toYaml'd map may lose its final line
				// break, upstream too; nothing reads it.
				if g, _ := got[k].(string); strings.TrimSuffix(g, "\n") != strings.TrimSuffix(want, "\n") {
					t.Errorf("%s[%s] = %q, want %q", c.cm, k, got[k], want)
				}
			}
		}
		if got := data("argocd-cmd-params-cm")["server.insecure"]; got != "true" {
			t.Errorf("argocd-cmd-params-cm server.insecure = %v, want \"true\"", got)
		}
		for _, w := range []string{"Deployment/argocd-server", "Deployment/argocd-repo-server", "Deployment/argocd-redis", "StatefulSet/argocd-application-controller", "Service/argocd-server", "Secret/argocd-secret", "Job/argocd-redis-secret-init", "Role/argocd-redis-secret-init"} {
			if objs[w] == nil {
				t.Errorf("no %s", w)
			}
		}
	})

	t.Run("argo-workflows", func(t *testing.T) {
		objs := render(byPrefix["argo_workflows"], valuesOf("argo_workflows"))
		d := objs["Deployment/argo-workflows-workflow-controller"]
		if d == nil {
			t.Fatal("no workflow controller Deployment")
		}
		b, _ := json.Marshal(d)
		if !bytes.Contains(b, []byte(`{"name":"DEFAULT_REQUEUE_TIME","value":"2s"}`)) {
			t.Errorf("the controller lacks the values' extraEnv: %s", b)
		}
	})

	t.Run("argocd-apps", func(t *testing.T) {
		objs := render(byPrefix["gitops_handoff"], valuesOf("gitops_handoff"))
		n := 0
		for _, f := range []string{"argocd/projects.yaml", "argocd/root.yaml"} {
			for _, doc := range bytes.Split(gen[f], []byte("\n---")) {
				var want map[string]any
				if err := yaml.Unmarshal(doc, &want); err != nil {
					t.Fatal(err)
				}
				if want == nil {
					continue
				}
				md := want["metadata"].(map[string]any)
				key := want["kind"].(string) + "/" + md["name"].(string)
				got := objs[key]
				if got == nil {
					t.Errorf("argocd-apps renders no %s", key)
					continue
				}
				n++
				for _, k := range []string{"apiVersion", "spec"} {
					if !reflect.DeepEqual(got[k], want[k]) {
						t.Errorf("%s: %s differs from %s:\n got %v\nwant %v", key, k, f, got[k], want[k])
					}
				}
				gm := got["metadata"].(map[string]any)
				for _, k := range []string{"name", "namespace", "labels"} {
					if !reflect.DeepEqual(gm[k], md[k]) {
						t.Errorf("%s: metadata.%s = %v, %s has %v", key, k, gm[k], f, md[k])
					}
				}
			}
		}
		if n != len(objs) {
			t.Errorf("argocd-apps renders %d objects, argocd/ has %d", len(objs), n)
		}
	})
}

// TestChartCRDsAsBootstrapSays: the CRDs the generated bootstrap says each
// chart installs (ansible.Release.CRDs: what the teardown deletes and the
// snapshot attributes to the release) are exactly those in the chart's
// crds/ directory, which for Argo CD, Argo Workflows and Argo Events are
// the upstream CRD manifests of the components' module sources. Sealed
// Secrets' stand-in CRD is simulated (no module source here), so its
// check only proves the names agree with what the stand-in ships.
func TestChartCRDsAsBootstrapSays(t *testing.T) {
	_, src := moduleSources(t)
	gen := generatedExample(t)
	charts, err := standInCharts(gen[ansible.Dir+"/inventories/"+string(gen["env"])+"/group_vars/all.yml"], src)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := ansible.Releases(exampleProgram(t))
	if err != nil {
		t.Fatal(err)
	}
	said := map[string][]string{}
	for _, r := range rels {
		said[strings.ReplaceAll(r.Role, "-", "_")] = slices.Sorted(slices.Values(r.CRDs))
	}
	for _, c := range charts {
		files, err := c.chartFiles()
		if err != nil {
			t.Fatal(err)
		}
		var shipped []string
		for name, b := range files {
			if !strings.HasPrefix(name, "crds/") || !strings.HasSuffix(name, ".yaml") {
				continue
			}
			var crd struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(b, &crd); err != nil {
				t.Fatalf("%s %s: %v", c.name, name, err)
			}
			if crd.Kind == "CustomResourceDefinition" {
				shipped = append(shipped, crd.Metadata.Name)
			}
		}
		slices.Sort(shipped)
		if !slices.Equal(shipped, said[c.prefix]) {
			t.Errorf("chart %s ships the CRDs %v; the bootstrap says %v", c.name, shipped, said[c.prefix])
		}
	}
}
