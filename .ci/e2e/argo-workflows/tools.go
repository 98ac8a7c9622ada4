//go:build tools

// Package tools pins the Argo Workflows controller (the version of
// platc's own argo-workflows API dependency) for platc's end-to-end
// environment (e2e/).
package tools

import _ "github.com/argoproj/argo-workflows/v3/cmd/workflow-controller"
