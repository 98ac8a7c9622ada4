package ansible

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/emit/internal/emittest"
)

// TestReleasesMatchGroupVars: the releases platc deploy compares are the
// ones the variables file hands the roles, value for value.
func TestReleasesMatchGroupVars(t *testing.T) {
	p := emittest.Example(t, "../..")
	files, err := Emitter{}.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	var gv map[string]any
	for _, f := range files {
		if strings.HasSuffix(f.Path, "group_vars/all.yml") {
			// The !unsafe tags are Ansible's; to YAML they are strings.
			src := strings.ReplaceAll(string(f.Data), "!unsafe ", "")
			if err := yaml.Unmarshal([]byte(src), &gv); err != nil {
				t.Fatal(err)
			}
		}
	}
	rels, err := Releases(p)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rels {
		names = append(names, r.Role+"="+r.Name+"@"+r.Namespace+":"+r.Chart+"-"+r.Version)
		prefix := strings.ReplaceAll(r.Role, "-", "_")
		if r.Name != gv[prefix+"_release_name"] || r.Version != gv[prefix+"_chart_version"] || r.Chart != gv[prefix+"_chart"] {
			t.Errorf("release %+v disagrees with group_vars", r)
		}
		if r.Role == "argocd" {
			if r.ValuesFile != "argocd/values.yaml" || r.Values != nil {
				t.Errorf("argo-cd release: values file %q, values %v", r.ValuesFile, r.Values)
			}
			continue
		}
		want, err := plainJSON(gv[prefix+"_values"])
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = map[string]any{}
		}
		if diff := cmp.Diff(want, any(r.Values)); diff != "" {
			t.Errorf("release %s values (-group_vars +Releases):\n%s", r.Name, diff)
		}
	}
	t.Log(names)
	if len(rels) != 5 {
		t.Errorf("%d releases, want the five roles'", len(rels))
	}
}

// TestReleaseCRDs: each release's CRDs are what the emitted teardown
// deletes for it (Sealed Secrets, which the teardown leaves: what its role
// requires), every CRD an install role requires is among its release's,
// and the root Application's release installs none.
func TestReleaseCRDs(t *testing.T) {
	p := emittest.Example(t, "../..")
	files, err := Emitter{}.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	emitted := map[string][]byte{}
	for _, f := range files {
		emitted[f.Path] = f.Data
	}
	rels, err := Releases(p)
	if err != nil {
		t.Fatal(err)
	}
	byRole := map[string]Release{}
	for _, r := range rels {
		byRole[r.Role] = r
	}
	var teardown []struct {
		Loop []struct {
			Release string   `yaml:"release"`
			CRDs    []string `yaml:"crds"`
		} `yaml:"loop"`
	}
	if err := yaml.Unmarshal(emitted[Dir+"/roles/primitives-teardown/tasks/main.yml"], &teardown); err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, item := range teardown[0].Loop {
		role := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(item.Release, "{{ "), "_release_name }}"), "_", "-")
		if got := byRole[role].CRDs; !cmp.Equal(got, item.CRDs, cmpopts.EquateEmpty()) {
			t.Errorf("release of %s: CRDs %v, the teardown deletes %v", role, got, item.CRDs)
		}
		removed++
	}
	if removed != len(TeardownOrder) {
		t.Errorf("the teardown removes %d releases, want %d", removed, len(TeardownOrder))
	}
	for _, r := range rels {
		var tasks []struct {
			Block []struct {
				Name string `yaml:"name"`
				Loop any    `yaml:"loop"` // a list, or an expression
			} `yaml:"block"`
		}
		if err := yaml.Unmarshal(emitted[Dir+"/roles/"+r.Role+"/tasks/main.yml"], &tasks); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, b := range tasks {
			for _, task := range b.Block {
				if task.Name != "Test | Read the CRDs the chart installs" {
					continue
				}
				loop, _ := task.Loop.([]any)
				for _, x := range loop {
					c, _ := x.(string)
					checked++
					if !slices.Contains(r.CRDs, c) {
						t.Errorf("role %s requires CRD %s, which is not among its release's %v", r.Role, c, r.CRDs)
					}
				}
			}
		}
		if (checked == 0) != (len(r.CRDs) == 0) && r.Role != "gitops-handoff" {
			t.Errorf("role %s checks %d CRDs, its release has %v", r.Role, checked, r.CRDs)
		}
	}
	if c := byRole["gitops-handoff"].CRDs; len(c) != 0 {
		t.Errorf("the root Application's release installs CRDs %v", c)
	}
	if c := byRole["sealed-secrets"].CRDs; !slices.Equal(c, []string{"sealedsecrets.bitnami.com"}) {
		t.Errorf("Sealed Secrets' CRDs: %v", c)
	}
}
