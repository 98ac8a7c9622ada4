package ansible

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
