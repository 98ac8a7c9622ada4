// Package testenv starts a real kube-apiserver backed by a real etcd for
// the executor's integration tests, with the Argo Workflows and Argo CD
// CRDs applied, static-token users for RBAC tests, and helpers to build
// kubeconfigs. The control plane itself is controlplane's, the one the
// e2e environment starts too, so both run the same flags and limits.
//
// The binaries come from outside the module: etcd from Debian's
// etcd-server package (on PATH), kube-apiserver built by .ci/run from
// .ci/e2e/kube and named by PLATC_KUBE_APISERVER. Without them the
// tests skip, unless PLATC_REQUIRE_APISERVER=1 (set by CI), which turns a
// missing binary into a failure so CI can never pass by skipping.
//
// No controller runs: no kube-controller-manager, no Argo controllers.
// Tests write what those controllers would write (node and pod status,
// Workflow status, Application status) themselves, as labelled fixtures.
// Everything else goes through the API server exactly as in a cluster.
package testenv
