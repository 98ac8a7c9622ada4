package compiler

import (
	"testing"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

func compileBootstrap(t *testing.T, bootstrap string) ir.Bootstrap {
	t.Helper()
	src := `platform "p" {
  git {
    repo_url = "https://git.example.com/p.git"
  }
` + bootstrap + `
}
`
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p, diags := Compile(m, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return p.Platform.Bootstrap
}

// A platform without a bootstrap block still gets pinned chart versions:
// RFC 6.2.1 forbids installing an unversioned chart.
func TestBootstrapDefaults(t *testing.T) {
	got := compileBootstrap(t, "")
	want := ir.Bootstrap{
		ArgoCDChart:        defaultArgoCDChart,
		WorkflowsChart:     defaultWorkflowsChart,
		EventsChart:        defaultEventsChart,
		SealedSecretsChart: defaultSealedSecretsChart,
		ArgoCDAppsChart:    defaultArgoCDAppsChart,
		ArgoRepo:           "https://argoproj.github.io/argo-helm",
		SealedSecretsRepo:  "https://bitnami-labs.github.io/sealed-secrets",
	}
	if got != want {
		t.Errorf("bootstrap = %+v, want %+v", got, want)
	}
}

// Versions the platform pins win; the ones it leaves out are defaulted.
func TestBootstrapPinned(t *testing.T) {
	got := compileBootstrap(t, `  bootstrap {
    argocd_chart      = "8.0.0"
    argocd_apps_chart = "2.0.5"
    argo_repo         = "oci://registry.example.com/argo"
  }`)
	if got.ArgoCDChart != "8.0.0" || got.ArgoCDAppsChart != "2.0.5" || got.ArgoRepo != "oci://registry.example.com/argo" {
		t.Errorf("pinned values lost: %+v", got)
	}
	if got.WorkflowsChart != defaultWorkflowsChart || got.SealedSecretsChart != defaultSealedSecretsChart {
		t.Errorf("unpinned versions not defaulted: %+v", got)
	}
}
