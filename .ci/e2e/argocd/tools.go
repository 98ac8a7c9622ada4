//go:build tools

// Package tools pins Argo CD for platc's end-to-end environment (e2e/).
// One multi-call binary serves as argocd, argocd-server,
// argocd-repo-server and argocd-application-controller (the name it is
// started under picks the role). v3.2 is the newest line the Go module
// proxy can build: from v3.3 on, argo-cd keeps gitops-engine as a nested
// module the proxy does not serve. go.mod copies argo-cd's own replace
// block, which a dependent module must repeat for the build to resolve.
package tools

import _ "github.com/argoproj/argo-cd/v3/cmd"
