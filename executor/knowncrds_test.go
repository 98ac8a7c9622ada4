package executor

import (
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/lang"
)

// TestKnownCRDs: the snapshot attributes each CRD a bootstrap chart
// installs unannotated to that chart's release, by the release's name in
// the generated bootstrap, and nothing else to the bootstrap.
func TestKnownCRDs(t *testing.T) {
	mod, diags := lang.Parse("../examples/platform.hcl")
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: "production"})
	if prog == nil {
		t.Fatal(append(diags, cdiags...))
	}
	rels, err := ansible.Releases(prog)
	if err != nil {
		t.Fatal(err)
	}
	got := knownCRDs(rels)
	want := map[string]string{}
	for _, rel := range rels {
		for _, c := range rel.CRDs {
			want[c] = rel.Name
		}
	}
	for c, rel := range map[string]string{
		"applications.argoproj.io":  "argocd",
		"workflows.argoproj.io":     "argo-workflows",
		"eventbus.argoproj.io":      "argo-events",
		"sealedsecrets.bitnami.com": "sealed-secrets-controller",
	} {
		if want[c] != rel {
			t.Errorf("CRD %s: the bootstrap says release %q, want %q", c, want[c], rel)
		}
	}
	if len(got) != len(want) {
		t.Errorf("known CRDs %v, want %v", got, want)
	}
	for c, rel := range want {
		if got[c] != rel {
			t.Errorf("CRD %s: release %q, want %q", c, got[c], rel)
		}
	}
}
