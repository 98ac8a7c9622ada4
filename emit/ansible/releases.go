package ansible

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/internal/gitops"
)

// A Release is one Helm release the bootstrap installs, as the variables
// file (group_vars) hands it to its role: what platc deploy compares the
// cluster's release with, and reconciles by running the bootstrap again.
type Release struct {
	Role      string // the role that installs it (roles/<Role>)
	Name      string // the release name
	Namespace string
	Chart     string // the chart's name, as Helm records it
	Version   string // the pinned chart version
	// Values are the values the role passes, as Helm stores them (JSON
	// types: maps, slices, strings, float64, bool). Empty when the role
	// passes ValuesFile instead.
	Values map[string]any
	// ValuesFile is the values file the role passes, relative to
	// generated/<env>/ (argocd/values.yaml for argo-cd).
	ValuesFile string
	// CRDs are the CRDs the chart installs from its crds/ directory,
	// which Helm neither annotates with the release nor deletes (see
	// chartCRDs).
	CRDs []string
}

// roles are the bootstrap's roles that install a release, in site.yml's
// order, with the prefix of their variables and the variable of their
// values ("" for Argo CD's, which is a file).
var roles = []struct{ role, prefix, values string }{
	{"argocd", "argocd", ""},
	{"argo-workflows", "argo_workflows", "argo_workflows_values"},
	{"argo-events", "argo_events", "argo_events_values"},
	{"sealed-secrets", "sealed_secrets", "sealed_secrets_values"},
	{"gitops-handoff", "gitops_handoff", "gitops_handoff_values"},
}

// TeardownOrder is the roles whose releases the teardown playbook
// (teardown.yml, role primitives-teardown) uninstalls, in its order: the
// reverse of the bootstrap, the root Application's release while Argo CD
// still runs to honour its finalizers, and not Sealed Secrets, whose key
// the Secrets left in the cluster may still need.
var TeardownOrder = []string{"argo-events", "argo-workflows", "gitops-handoff", "argocd"}

// Releases are the Helm releases of the bootstrap in the order site.yml
// installs them, read from the same variables as the variables file, so
// the comparison and the bootstrap cannot disagree.
func Releases(p *ir.Program) ([]Release, error) {
	vars, err := groupVars(p)
	if err != nil {
		return nil, err
	}
	get := func(k string) any {
		for _, e := range vars {
			if e.k == k {
				return e.v
			}
		}
		return nil
	}
	str := func(k string) string { s, _ := get(k).(string); return s }
	crds, err := chartCRDs()
	if err != nil {
		return nil, err
	}
	var out []Release
	for _, r := range roles {
		rel := Release{Role: r.role, Name: str(r.prefix + "_release_name"), Chart: str(r.prefix + "_chart"), Version: str(r.prefix + "_chart_version"),
			Namespace: str(r.prefix + "_namespace"), CRDs: crds[r.role]}
		if r.role == "gitops-handoff" {
			// The root release lives beside Argo CD (the role installs it
			// in argocd_namespace).
			rel.Namespace = str("argocd_namespace")
		}
		if r.values == "" {
			rel.ValuesFile = gitops.ValuesFile
		} else {
			v, err := plainJSON(get(r.values))
			if err != nil {
				return nil, fmt.Errorf("emit/ansible: the values of release %s: %w", rel.Name, err)
			}
			m, _ := v.(map[string]any)
			rel.Values = m
		}
		out = append(out, rel)
	}
	return out, nil
}

// chartCRDs are, by role, the CRDs each bootstrap chart installs from its
// crds/ directory, read from the one place the generated bootstrap names
// them: the list the teardown role deletes for a release with
// TEARDOWN_CRDS, and for Sealed Secrets, which the teardown leaves, the
// list its own role requires after the install. Whoever else needs them
// (the executor's snapshot, telling the bootstrap's CRDs from the
// cluster's) reads Release.CRDs rather than keeping a copy.
var chartCRDs = sync.OnceValues(func() (map[string][]string, error) {
	out := map[string][]string{}
	const teardown = "files/roles/primitives-teardown/tasks/main.yml"
	var tasks []struct {
		Loop []struct {
			Release string   `yaml:"release"`
			CRDs    []string `yaml:"crds"`
		} `yaml:"loop"`
	}
	if err := readYAML(teardown, &tasks); err != nil {
		return nil, err
	}
	for _, task := range tasks {
		for _, item := range task.Loop {
			i := slices.IndexFunc(roles, func(r struct{ role, prefix, values string }) bool {
				return item.Release == "{{ "+r.prefix+"_release_name }}"
			})
			if i < 0 {
				return nil, fmt.Errorf("emit/ansible: %s removes release %q, which no role installs", teardown, item.Release)
			}
			out[roles[i].role] = item.CRDs
		}
	}
	const sealed = "files/roles/sealed-secrets/tasks/main.yml"
	var blocks []struct {
		Block []struct {
			Name string    `yaml:"name"`
			Loop yaml.Node `yaml:"loop"` // another task's may be an expression
		} `yaml:"block"`
	}
	if err := readYAML(sealed, &blocks); err != nil {
		return nil, err
	}
	for _, b := range blocks {
		for _, task := range b.Block {
			if task.Name == "Test | Read the CRDs the chart installs" {
				var crds []string
				if err := task.Loop.Decode(&crds); err != nil {
					return nil, fmt.Errorf("emit/ansible: %s: the CRDs its chart installs: %w", sealed, err)
				}
				out["sealed-secrets"] = crds
			}
		}
	}
	if len(out["sealed-secrets"]) == 0 {
		return nil, fmt.Errorf("emit/ansible: %s no longer reads the CRDs its chart installs", sealed)
	}
	return out, nil
})

func readYAML(name string, v any) error {
	b, err := tree.ReadFile(name)
	if err == nil {
		err = yaml.Unmarshal(b, v)
	}
	if err != nil {
		return fmt.Errorf("emit/ansible: the embedded %s: %w", name, err)
	}
	return nil
}

// plainJSON turns the ordered maps of the variables into what Helm
// stores after reading the values file: JSON's types.
func plainJSON(v any) (any, error) {
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

func jsonable(v any) any {
	switch v := v.(type) {
	case om:
		m := make(map[string]any, len(v))
		for _, e := range v {
			m[e.k] = jsonable(e.v)
		}
		return m
	case kv:
		return map[string]any{v.k: jsonable(v.v)}
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = jsonable(e)
		}
		return m
	case []om:
		return jsonable(anys(v))
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonable(e)
		}
		return out
	case jinja:
		return string(v)
	}
	return v
}
