//go:build tools

// Package tools pins helm for platc's end-to-end environment (e2e/):
// Argo CD's repo-server runs it to render Helm sources, and the executor's
// Phase 0 requires it (RFC 3.2.1). The version is the Dockerfile's.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
