//go:build tools

// Package tools pins kube-apiserver for platc's executor integration tests.
// It is its own module, outside platc's ./..., so the Kubernetes tree never
// enters platc's dependency graph; .ci/run builds the binary from here.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
