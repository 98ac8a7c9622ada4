package executor

import (
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/emit/ansible"
)

// TestKnownCRDsAsTeardown: the CRDs the snapshot attributes to each
// bootstrap release without Helm's annotation are the ones the generated
// teardown playbook deletes for it (and Sealed Secrets' role's), so the
// two lists cannot drift apart.
func TestKnownCRDsAsTeardown(t *testing.T) {
	b, err := os.ReadFile("../emit/ansible/files/roles/primitives-teardown/tasks/main.yml")
	if err != nil {
		t.Fatal(err)
	}
	var tasks []struct {
		Loop []struct {
			Release string   `json:"release"`
			CRDs    []string `json:"crds"`
		} `json:"loop"`
	}
	if err := yaml.Unmarshal(b, &tasks); err != nil {
		t.Fatal(err)
	}
	// '{{ argo_events_release_name }}' → argo-events, the role.
	roleOf := map[string]string{"argocd": "argocd", "argo_workflows": "argo-workflows", "argo_events": "argo-events", "gitops_handoff": "gitops-handoff"}
	rels := []ansible.Release{{Role: "sealed-secrets", Name: "sealed-secrets"}}
	want := map[string]string{"sealedsecrets.bitnami.com": "sealed-secrets"}
	for _, task := range tasks {
		for _, item := range task.Loop {
			v := strings.TrimSuffix(strings.Trim(item.Release, "{} "), "_release_name")
			role, ok := roleOf[v]
			if !ok {
				t.Fatalf("teardown release %q: no role known", item.Release)
			}
			rels = append(rels, ansible.Release{Role: role, Name: role + "-release"})
			for _, c := range item.CRDs {
				want[c] = role + "-release"
			}
		}
	}
	got := knownCRDs(rels)
	if len(got) != len(want) {
		t.Errorf("known CRDs %v, want %v", got, want)
	}
	for c, rel := range want {
		if got[c] != rel {
			t.Errorf("CRD %s: release %q, want %q", c, got[c], rel)
		}
	}
	if !slices.Contains(strings.Fields(string(mustRead(t, "../emit/ansible/files/roles/sealed-secrets/tasks/main.yml"))), "sealedsecrets.bitnami.com") {
		t.Error("the sealed-secrets role no longer checks sealedsecrets.bitnami.com")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
