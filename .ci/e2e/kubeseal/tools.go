//go:build tools

// Package tools pins kubeseal for platc's end-to-end environment (e2e/):
// the executor's Phase 0 requires it (RFC 3.2.1). The version is the
// Dockerfile's.
package tools

import _ "github.com/bitnami-labs/sealed-secrets/cmd/kubeseal"
