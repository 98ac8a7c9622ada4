// Package gitops builds the Argo CD objects of the GitOps handoff from a
// compiled platform: one Application per app, the root app-of-apps, the
// Applications that deliver platc's own workflow and event objects, the
// AppProjects they live in, and the names every emitter must agree on.
//
// It exists so that emit/argocd (which writes these objects as files) and
// emit/ansible (which hands the root Application and its projects to the
// argo-helm argocd-apps chart) build them once, the same way. The types
// mirror the JSON of Argo CD's v1alpha1 API for the fields platc sets; the
// tests decode the output strictly against Argo CD's published CRD schemas,
// which is what keeps the mirror honest. The argocd-apps chart prints a
// few fields unquoted, so chart_test.go reads those back through Helm's
// YAML parser.
//
// It is not an emitter and writes no files, and it does not talk to a
// cluster.
package gitops
