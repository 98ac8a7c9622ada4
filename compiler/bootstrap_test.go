package compiler

import (
	"strings"
	"testing"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

func compileBootstrap(t *testing.T, bootstrap string) ir.Bootstrap {
	t.Helper()
	return compilePlatformBlock(t, bootstrap).Platform.Bootstrap
}

// compilePlatformBlock compiles a platform "p" whose block holds a git
// block and inner.
func compilePlatformBlock(t *testing.T, inner string) *ir.Program {
	t.Helper()
	src := `platform "p" {
  git {
    repo_url = "https://git.example.com/p.git"
  }
` + inner + `
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
	return p
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

// An app may not take the name of an Application platc generates for
// itself, nor put itself in platc's own project: the files and the Argo
// CD objects would collide.
func TestReservedNames(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`app "platc-root" {}`, "Reserved application name"},
		{`app "x" { application = "platc-workflows" }`, "Reserved application name"},
		{"app \"platc-events\" {\n namespace = \"n\"\n source {\n path = \"p\"\n }\n}", "Reserved application name"},
		{`app "x" { project = "platc-orchestration" }`, "Reserved project name"},
		{`app "platc-root-01" {}`, "Reserved application name"},
		{`app "x" { application = "platc-root-7" }`, "Reserved application name"},
	} {
		src := "platform \"p\" {\n  git {\n    repo_url = \"https://git.example.com/p.git\"\n  }\n}\n" + tc.body + "\n"
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, diags = Compile(m, Options{})
		if !diags.HasErrors() || diags[0].Summary != tc.want {
			t.Errorf("%s: diagnostics %v, want %q", tc.body, diags, tc.want)
		}
	}
}

// argocd.applications_per_root is bounded by what one parent
// Application can record (ir.MaxAppsPerRoot), and defaults to it.
func TestAppsPerRoot(t *testing.T) {
	for _, tc := range []struct {
		argocd string
		want   int
		err    string
	}{
		{"", ir.DefaultAppsPerRoot, ""},
		{"applications_per_root = 3", 3, ""},
		{"applications_per_root = 0", 0, `"applications_per_root" must be a whole number from 1 to 2000; got 0.`},
		{"applications_per_root = 2001", 0, `"applications_per_root" must be a whole number from 1 to 2000; got 2001.`},
		{`applications_per_root = "many"`, 0, "applications_per_root"},
	} {
		src := "platform \"p\" {\n  git {\n    repo_url = \"https://git.example.com/p.git\"\n  }\n  argocd {\n    " + tc.argocd + "\n  }\n}\n"
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		p, diags := Compile(m, Options{})
		if tc.err != "" {
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) || diags[0].Subject == nil || diags[0].Subject.Start.Line != 6 {
				t.Errorf("%s: diagnostics %v, want an error at line 6 saying %q", tc.argocd, diags, tc.err)
			}
			continue
		}
		if diags.HasErrors() {
			t.Fatalf("%s: %v", tc.argocd, diags)
		}
		if got := p.Platform.ArgoCD.AppsPerRoot; got != tc.want {
			t.Errorf("%s: AppsPerRoot %d, want %d", tc.argocd, got, tc.want)
		}
	}
}
