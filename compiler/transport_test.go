package compiler

import (
	"testing"
	"time"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

// How the steps reach argocd-server by default: a fresh argo-cd install
// serves a self-signed certificate no step can verify, so without a
// named server the steps speak plaintext to the Service's HTTP port (and
// the chart values set server.insecure); a named server means TLS unless
// plaintext says otherwise.
func TestArgoCDTransport(t *testing.T) {
	for _, c := range []struct {
		name, argocd string
		server       string
		plaintext    bool
	}{
		{"default", ``, "argocd-server.argocd.svc:80", true},
		{"other namespace", `namespace = "gitops"`, "argocd-server.gitops.svc:80", true},
		{"tls to the service", `plaintext = false`, "argocd-server.argocd.svc:443", false},
		{"named server", `server = "argocd.example.com:443"`, "argocd.example.com:443", false},
		{"named server in plaintext", "server = \"argocd-server.argocd:80\"\nplaintext = true", "argocd-server.argocd:80", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := compilePlatformBlock(t, "argocd {\n"+c.argocd+"\n}")
			a := p.Platform.ArgoCD
			if a.Server != c.server || a.PlainText != c.plaintext {
				t.Errorf("server %q plaintext %v, want %q %v", a.Server, a.PlainText, c.server, c.plaintext)
			}
		})
	}
}

// Argo CD's periodic comparison with Git: the default, a value of the
// HCL, and a value outside the range, which is an error at the
// attribute.
func TestReconciliationTimeout(t *testing.T) {
	if got := compilePlatformBlock(t, "").Platform.ArgoCD.ReconciliationTimeout; got != ir.DefaultReconciliationTimeout {
		t.Errorf("default %v, want %v", got, ir.DefaultReconciliationTimeout)
	}
	if got := compilePlatformBlock(t, "argocd {\nreconciliation_timeout = \"1h\"\n}").Platform.ArgoCD.ReconciliationTimeout; got != time.Hour {
		t.Errorf("1h read as %v", got)
	}
	for _, v := range []string{`"30s"`, `"48h"`, `"0s"`, `"soon"`} {
		src := "platform \"p\" {\n  git {\n    repo_url = \"https://git.example.com/p.git\"\n  }\n  argocd {\n    reconciliation_timeout = " + v + "\n  }\n}\n"
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, diags = Compile(m, Options{})
		if !diags.HasErrors() {
			t.Errorf("reconciliation_timeout = %s accepted", v)
			continue
		}
		if d := diags[0]; d.Summary != "Invalid duration" || d.Subject == nil || d.Subject.Start.Line != 6 {
			t.Errorf("reconciliation_timeout = %s: %s at %v, want Invalid duration at line 6", v, d.Summary, d.Subject)
		}
	}
}
