package argo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/emit/internal/gitops"
)

// TestDeliveredByArgoCD checks that Argo CD can sync workflows/ as the
// GitOps emitters set it up: the platc-workflows Application points at this
// directory, and its AppProject permits every object in it: each
// cluster-scoped kind is whitelisted and each namespaced object lands in a
// permitted destination namespace. A mismatch would fail the sync, and no
// template would reach the cluster.
func TestDeliveredByArgoCD(t *testing.T) {
	for _, c := range []struct{ name, teardown string }{
		{"retain", ""},
		{"snapshot", "\n  teardown {\n    volumes = \"snapshot\"\n  }\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := source(t, "platform \"p\" {\n  workflows {\n    namespace = \"wf\"\n  }\n  git { repo_url = \"https://git.example.com/p.git\" }\n}\napp \"a\" {"+c.teardown+"}\n")
			app := gitops.Workflows(p)
			if app.Spec.Project != gitops.Project || !strings.HasSuffix(app.Spec.Source.Path, "/"+gitops.WorkflowsDir) {
				t.Fatalf("platc-workflows: project %q, path %q", app.Spec.Project, app.Spec.Source.Path)
			}
			var project *gitops.AppProject
			for _, pr := range gitops.Projects(p) {
				if pr.Metadata.Name == gitops.Project {
					project = &pr
				}
			}
			if project == nil {
				t.Fatalf("no AppProject %s", gitops.Project)
			}
			var namespaces []string
			for _, d := range project.Spec.Destinations {
				namespaces = append(namespaces, d.Namespace)
			}
			files := emitFiles(t, p)
			for _, path := range []string{"workflows/templates.yaml", "workflows/deploy.yaml", "workflows/teardown.yaml", "workflows/validate.yaml", "workflows/rbac.yaml"} {
				for i, doc := range documents(files[path]) {
					var o struct {
						APIVersion string
						Kind       string
						Metadata   struct{ Namespace string }
					}
					if err := yaml.Unmarshal(doc, &o); err != nil {
						t.Fatal(err)
					}
					where := fmt.Sprintf("%s#%d (%s)", path, i, o.Kind)
					if o.Metadata.Namespace == "" {
						group, _, _ := strings.Cut(o.APIVersion, "/")
						if !slices.Contains(project.Spec.ClusterResourceWhitelist, gitops.GroupKind{Group: group, Kind: o.Kind}) {
							t.Errorf("%s is cluster-scoped but project %s does not whitelist %s/%s", where, gitops.Project, group, o.Kind)
						}
						continue
					}
					if !slices.Contains(namespaces, o.Metadata.Namespace) {
						t.Errorf("%s goes to namespace %s, not a destination of project %s %v", where, o.Metadata.Namespace, gitops.Project, namespaces)
					}
				}
			}
		})
	}
}
