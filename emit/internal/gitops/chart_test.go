package gitops_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	helmyaml "sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/internal/golden"
)

// The argocd-apps chart, at the version platc pins (2.0.2), writes most
// of what platc hands it through toYaml, which quotes as YAML needs. A few
// fields it prints as they are, `key: {{ . }}`, so YAML reads the value a
// second time in the rendered manifest: a description with ": " in it
// stopped `helm install` with "mapping values are not allowed in this
// context" (issue 19), and a name such as "yes" or "123" would become a
// boolean or a number. These are those fields, read from the chart's
// templates/projects.yaml and templates/applications.yaml at 2.0.2; name
// stands for the map key, which the chart prints as metadata.name. The
// Application's project also goes through tpl, so "{{" in it would run
// as a template. Annotation keys are unquoted too (their values are
// quoted); platc sets no annotations, and the test refuses any key it
// does not know.
var unquoted = map[string][]string{
	"projects":     {"name", "namespace", "description", "permitOnlyProjectScopedClusters"},
	"applications": {"name", "namespace", "project", "revisionHistoryLimit"},
}

// rendered are the fields the chart writes with toYaml: safe whatever
// they hold.
var rendered = map[string][]string{
	"projects": {"additionalLabels", "finalizers", "sourceRepos", "destinations",
		"clusterResourceWhitelist", "clusterResourceBlacklist", "namespaceResourceBlacklist",
		"namespaceResourceWhitelist", "orphanedResources", "roles", "syncWindows",
		"signatureKeys", "sourceNamespaces"},
	"applications": {"additionalLabels", "finalizers", "source", "sources", "destination",
		"syncPolicy", "ignoreDifferences", "info"},
}

// handoffValues reads gitops_handoff_values from the group_vars the
// ansible emitter writes for p.
func handoffValues(t *testing.T, p *ir.Program) map[string]any {
	t.Helper()
	path := "ansible/inventories/" + p.Env.Name + "/group_vars/all.yml"
	data, ok := emittest.Emit(t, p, ansible.Emitter{})[path]
	if !ok {
		t.Fatalf("no %s", path)
	}
	// yaml.v3 reads a !unsafe scalar as its string.
	var vars map[string]any
	if err := yaml.Unmarshal(data, &vars); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v, ok := vars["gitops_handoff_values"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no gitops_handoff_values", path)
	}
	return v
}

// chartProblems returns what the chart would not render as platc meant
// it: each unquoted field whose line `key: value` Helm's YAML parser
// (sigs.k8s.io/yaml, as helm install uses) does not read back as exactly
// that value, and each field the test does not know how the chart
// writes.
func chartProblems(values map[string]any) []string {
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(unquoted)) {
		objs, _ := values[kind].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(objs)) {
			obj, _ := objs[name].(map[string]any)
			fields := map[string]any{"name": name}
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				switch {
				case slices.Contains(unquoted[kind], k):
					fields[k] = obj[k]
				case !slices.Contains(rendered[kind], k):
					out = append(out, fmt.Sprintf("%s.%s.%s: the chart's templates at 2.0.2 do not write this field, or this test does not know how", kind, name, k))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				// What {{ . }} prints.
				line := fmt.Sprintf("%s: %v", k, fields[k])
				var got map[string]any
				if err := helmyaml.Unmarshal([]byte(line), &got); err != nil {
					out = append(out, fmt.Sprintf("%s.%s: %q: %v", kind, name, line, err))
					continue
				}
				if s, isString := fields[k].(string); isString && (got[k] != s || len(got) != 1) {
					out = append(out, fmt.Sprintf("%s.%s: %q reads as %#v, not the string %q", kind, name, line, got[k], s))
				}
				if s, _ := fields[k].(string); k == "project" && strings.Contains(s, "{{") {
					out = append(out, fmt.Sprintf("%s.%s: the project %q would run as a template (tpl)", kind, name, s))
				}
			}
		}
	}
	return out
}

// TestChartRendersHandoffValues is the check that would have caught issue
// 19's failing handoff install: every value platc puts where the
// argocd-apps chart prints it unquoted reads back as itself, for the
// example platform and every golden platform (team projects, events).
func TestChartRendersHandoffValues(t *testing.T) {
	programs := map[string]*ir.Program{"example": emittest.Example(t, "../../..")}
	for _, c := range golden.Load(t, filepath.Join("testdata", "golden")) {
		for _, f := range c.Archive.Files {
			if f.Name == "platform.hcl" {
				programs[c.Name] = emittest.Compile(t, "platform.hcl", f.Data, "")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(programs)) {
		values := handoffValues(t, programs[name])
		if len(values["projects"].(map[string]any)) == 0 || len(values["applications"].(map[string]any)) == 0 {
			t.Fatalf("%s: no projects or applications to check", name)
		}
		for _, p := range chartProblems(values) {
			t.Errorf("%s: %s", name, p)
		}
	}
}

// The check fails on what the chart cannot render: the description that
// broke the install, names YAML reads as something else, a template in
// the project, and a field the chart does not write.
func TestChartProblemsFound(t *testing.T) {
	for _, c := range []struct {
		kind, name, key string
		value           any
	}{
		{"projects", "p", "description", "platc's orchestration: the root app and the workflow and event objects"},
		{"projects", "p", "description", "a # b"},
		{"projects", "yes", "description", "d"},
		{"projects", "p", "namespace", "123"},
		{"applications", "a", "namespace", "no"},
		{"applications", "a", "project", "{{ .Release.Name }}x"},
		{"applications", "a", "syncWindow", "x"},
	} {
		values := map[string]any{c.kind: map[string]any{c.name: map[string]any{c.key: c.value}}}
		if got := chartProblems(values); len(got) == 0 {
			t.Errorf("%s %q: %s = %q passed", c.kind, c.name, c.key, c.value)
		}
	}
	ok := map[string]any{"projects": map[string]any{"team-a": map[string]any{
		"namespace": "argocd", "description": "Apps of platform shop, generated by platc",
		"sourceRepos": []any{"https://x: y"},
	}}}
	if got := chartProblems(ok); len(got) != 0 {
		t.Errorf("plain values reported: %v", got)
	}
}
