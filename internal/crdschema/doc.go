// Package crdschema validates Kubernetes objects against the strict JSON
// schemas of the kinds platc emits (Argo Workflows and Argo CD CRDs, the
// core ConfigMap), which it embeds (see SCHEMAS.md for where each file
// comes from), so tests never need the network. Each schema is compiled
// once per test binary, on first use.
//
// It is test support only; nothing in platc's binary imports it.
package crdschema
