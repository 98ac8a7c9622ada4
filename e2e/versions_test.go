package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/lang"
)

// The versions the e2e environment tests are the versions platc ships
// and the example declares: the executor image's tools (Dockerfile), the
// step image's argocd CLI (emit/argo), the example's Argo CD, and the
// wrapper modules .ci/e2e builds. A bump of one without the others fails
// here, not in a cluster.
func TestVersionsAligned(t *testing.T) {
	docker, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	arg := func(name string) string {
		m := regexp.MustCompile(`(?m)^ARG ` + name + `=(\S+)$`).FindSubmatch(docker)
		if m == nil {
			t.Fatalf("Dockerfile has no ARG %s", name)
		}
		return "v" + strings.TrimPrefix(string(m[1]), "v")
	}
	required := func(dir, module string) string {
		b, err := os.ReadFile("../.ci/e2e/" + dir + "/go.mod")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + ` (v\S+)`).FindSubmatch(b)
		if m == nil {
			t.Fatalf(".ci/e2e/%s/go.mod does not require %s", dir, module)
		}
		return string(m[1])
	}
	m, diags := lang.Parse("../examples/platform.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := compiler.Compile(m, compiler.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	argocd := required("argocd", "github.com/argoproj/argo-cd/v3")
	for what, v := range map[string]string{
		"Dockerfile ARGOCD_VERSION":           arg("ARGOCD_VERSION"),
		"emit/argo DefaultImageArgoCDVersion": argo.DefaultImageArgoCDVersion,
		"examples' platform.argocd.version":   p.Platform.ArgoCD.Version,
	} {
		if v != argocd {
			t.Errorf("%s is %s; the e2e environment tests Argo CD %s", what, v, argocd)
		}
	}
	for _, c := range []struct{ arg, dir, module string }{
		{"ARGO_VERSION", "argo-workflows", "github.com/argoproj/argo-workflows/v3"},
		{"HELM_VERSION", "helm", "helm.sh/helm/v3"},
		{"KUBESEAL_VERSION", "kubeseal", "github.com/bitnami-labs/sealed-secrets"},
		{"YQ_VERSION", "yq", "github.com/mikefarah/yq/v4"},
	} {
		if d, e := arg(c.arg), required(c.dir, c.module); d != e {
			t.Errorf("Dockerfile %s is %s; the e2e environment tests %s", c.arg, d, e)
		}
	}
	// Argo Workflows: the release the bootstrap installs is the one the
	// e2e builds, the image's CLI and the validation code in platc's own
	// go.mod.
	own, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	mod := regexp.MustCompile(`(?m)^\s*github\.com/argoproj/argo-workflows/v3 (v\S+)`).FindSubmatch(own)
	if mod == nil {
		t.Fatal("go.mod does not require github.com/argoproj/argo-workflows/v3")
	}
	built := required("argo-workflows", "github.com/argoproj/argo-workflows/v3")
	for what, v := range map[string]string{
		"ir.ArgoWorkflowsVersion (what the bootstrap installs)": ir.ArgoWorkflowsVersion,
		"go.mod's argo-workflows (the validation code)":         string(mod[1]),
	} {
		if v != built {
			t.Errorf("%s is %s; the e2e environment tests Argo Workflows %s", what, v, built)
		}
	}
	if d, k := arg("KUBECTL_VERSION"), required("kube", "k8s.io/kubernetes"); d != k {
		t.Errorf("Dockerfile KUBECTL_VERSION is %s; the e2e environment tests %s", d, k)
	}
}
