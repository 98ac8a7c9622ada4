package argo

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/emit"
	"github.com/platc/platc/internal/crdschema"
	"github.com/platc/platc/internal/synth"
)

// documents splits a YAML file into its documents.
func documents(data []byte) [][]byte {
	var out [][]byte
	for _, d := range strings.Split(strings.TrimPrefix(string(data), emit.Header), "\n---\n") {
		if strings.TrimSpace(d) != "" {
			out = append(out, []byte(d))
		}
	}
	return out
}

// checkSchema validates one YAML document against its kind's CRD schema.
func checkSchema(t *testing.T, name string, doc []byte) {
	t.Helper()
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var obj struct{ Kind string }
	if err := json.Unmarshal(j, &obj); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	switch err := crdschema.Validate(obj.Kind, j); {
	case errors.Is(err, crdschema.ErrNoSchema):
		t.Fatalf("%s: %v", name, err)
	case err != nil:
		t.Errorf("%s: %s does not match the CRD schema: %v", name, obj.Kind, err)
	}
}

// TestCRDSchemas validates every emitted Argo object, and the scoped
// Workflows, against the Argo Workflows v3.7.18 full CRD schemas with
// unknown fields forbidden; the RBAC objects decode strictly into their
// Kubernetes types.
func TestCRDSchemas(t *testing.T) {
	for _, pl := range []struct {
		name string
		opts *synth.Options
	}{
		{"example", nil}, {"synth-500-cross", &synth.Options{Apps: 500, CrossStack: true, Seed: 3}},
		// The full CRDs limit a DAG to 200 tasks and a workflow to 200
		// templates: the nesting of 10,000 apps must stay within them.
		{"synth-10000-cross", &synth.Options{Apps: 10000, CrossStack: true}},
	} {
		t.Run(pl.name, func(t *testing.T) {
			bigPlatform(t, pl.opts)
			p := load(t, pl.opts)
			files := emitFiles(t, p)
			for _, path := range []string{"workflows/templates.yaml", "workflows/deploy.yaml", "workflows/teardown.yaml", "workflows/validate.yaml"} {
				for i, doc := range documents(files[path]) {
					checkSchema(t, fmt.Sprintf("%s#%d", path, i), doc)
				}
			}
			for _, scope := range scopes(p) {
				// Unchecked against the limits (TestSpotWithinLimits):
				// the schema is asked about the shape, at every size.
				for _, build := range []func() (*spot, error){
					func() (*spot, error) { return scopedDeploy(p, scope.apps) },
					func() (*spot, error) { return scopedTeardown(p, scope.apps) },
				} {
					s, err := build()
					if err != nil {
						t.Fatal(err)
					}
					wf := s.wf
					data, err := new(Objects).render(wf)
					if err != nil {
						t.Fatal(err)
					}
					checkSchema(t, scope.name, documents(data)[0])
				}
			}
			checkRBAC(t, files["workflows/rbac.yaml"])
		})
	}
}

func checkRBAC(t *testing.T, data []byte) {
	t.Helper()
	kinds := map[string]func() any{
		"ServiceAccount":     func() any { return &corev1.ServiceAccount{} },
		"Role":               func() any { return &rbacv1.Role{} },
		"RoleBinding":        func() any { return &rbacv1.RoleBinding{} },
		"ClusterRole":        func() any { return &rbacv1.ClusterRole{} },
		"ClusterRoleBinding": func() any { return &rbacv1.ClusterRoleBinding{} },
	}
	docs := documents(data)
	if len(docs) < 3 {
		t.Fatalf("rbac.yaml has %d objects", len(docs))
	}
	for i, doc := range docs {
		var head struct{ Kind string }
		if err := yaml.Unmarshal(doc, &head); err != nil {
			t.Fatal(err)
		}
		mk, ok := kinds[head.Kind]
		if !ok {
			t.Errorf("rbac.yaml#%d: unexpected kind %q", i, head.Kind)
			continue
		}
		if err := yaml.UnmarshalStrict(doc, mk()); err != nil {
			t.Errorf("rbac.yaml#%d (%s) does not decode strictly: %v", i, head.Kind, err)
		}
	}
}

// The workflows' account may do nothing but report step results, plus,
// only when an app snapshots its volumes, create and read VolumeSnapshots.
func TestRBACIsLeast(t *testing.T) {
	for _, c := range []struct {
		name      string
		src       string
		snapshots bool
	}{
		{"retain", "", false},
		{"snapshot", "\n  teardown {\n    volumes = \"snapshot\"\n  }\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := source(t, "platform \"p\" {\n  workflows {\n    namespace = \"wf\"\n    service_account = \"runner\"\n  }\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\napp \"a\" {"+c.src+"}\n")
			var rules []string
			for _, doc := range documents(emitFiles(t, p)["workflows/rbac.yaml"]) {
				var o struct {
					Kind     string
					Metadata struct{ Name, Namespace string }
					Rules    []rbacv1.PolicyRule
					Subjects []rbacv1.Subject
				}
				if err := yaml.Unmarshal(doc, &o); err != nil {
					t.Fatal(err)
				}
				for _, r := range o.Rules {
					rules = append(rules, fmt.Sprintf("%s %s %v %v", o.Kind, o.Metadata.Namespace, r.Resources, r.Verbs))
				}
				for _, s := range o.Subjects {
					if s.Kind != "ServiceAccount" || s.Name != "runner" || s.Namespace != "wf" {
						t.Errorf("%s binds %+v", o.Kind, s)
					}
				}
			}
			want := []string{"Role wf [workflowtaskresults] [create patch]"}
			if c.snapshots {
				want = append(want, "ClusterRole  [volumesnapshots] [create get]")
			}
			if fmt.Sprint(rules) != fmt.Sprint(want) {
				t.Errorf("rules %q, want %q", rules, want)
			}
		})
	}
}
