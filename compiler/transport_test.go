package compiler

import "testing"

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
