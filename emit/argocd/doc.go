// Package argocd emits what Argo CD reads from generated/<env>/argocd/:
//
//   - apps/<app>.yaml: one Application per app that has a source, created
//     without automated sync (INV-2), plus platc-workflows.yaml and, with an
//     events block, platc-events.yaml, which bring platc's own workflow
//     and event objects to the cluster;
//   - root.yaml: the root app-of-apps that syncs apps/, with the
//     ignoreDifferences recipe that lets the deploy workflow switch
//     automated sync on afterwards (docs/workflows.md);
//   - projects.yaml: the AppProjects the root and the apps live in;
//   - values.yaml: Helm values for the argo-cd chart that the bootstrap
//     installs: health customizations, the automation account and its RBAC
//     policy;
//   - health.yaml: the argocd-cm health customizations as a ConfigMap.
//
// The objects themselves are built in emit/internal/gitops, which the
// Ansible emitter shares: the bootstrap creates the root Application and
// the AppProjects through the argocd-apps Helm chart, since Helm is the
// only install method RFC 6.2.1 allows, and root.yaml and projects.yaml
// are the record of what that release contains.
//
// This package does not talk to Argo CD or a cluster, and it does not
// decide the deploy order: that is the deploy workflow's job.
package argocd
