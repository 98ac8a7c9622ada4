// Package manifest reads plain Kubernetes manifests for platc lint --scan
// and platc import: every YAML document under a directory, plus the
// resources and patches that kustomizations there list, as yaml.v3 nodes
// that keep their line and column, so findings point at the exact line of
// a manifest. A Loader reads several directories, kustomizations and
// files into one Set.
//
// It is a top-level package, not part of lint, because two stages read it:
// lint's --scan rules and the importer, which infers a platform from what
// it loads. It imports neither of them.
//
// It is not a Kubernetes decoder: objects stay untyped YAML nodes, and
// nothing is validated against a schema. It does not render Helm
// templates or run kustomize; it reads files as they are written (of
// kustomize's transformers it records only namespace:, which decides
// where objects land).
package manifest
