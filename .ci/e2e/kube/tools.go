//go:build tools

// Package tools pins the Kubernetes control plane for platc's executor
// integration tests (kube-apiserver alone) and its end-to-end environment
// (with kube-controller-manager, which turns Deployments into Pods, and
// kube-scheduler, which binds them to kwok's fake nodes). It is its own
// module, outside platc's ./..., so the Kubernetes tree never enters
// platc's dependency graph. go.mod replaces the staging modules with
// their published releases, as k8s.io/kubernetes' own go.mod points them
// at ./staging, which a dependent module cannot see.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
