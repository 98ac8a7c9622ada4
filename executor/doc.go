// Package executor runs the three actions of RFC-DEPLOY-0001 section 7
// against a cluster: deploy, validate and teardown. It is what the
// executor image runs; cmd/platc only turns flags and environment
// variables into a config.Config and prints what comes back.
//
// Each action starts with Phase 0 (package preflight), reads the current
// state from the cluster, and then either changes nothing (validate, a dry
// run, an already converged platform, an already removed one) or submits
// one Argo Workflow and follows it node by node until it finishes:
//
//   - deploy bootstraps Argo CD and Argo Workflows with the platform's
//     generated Ansible when they are absent, then runs the deploy
//     WorkflowTemplate (or, for a stack or app scope, a workflow compiled
//     on the spot), then checks every Application in scope is Synced and
//     Healthy; on a cluster bootstrapped earlier it first compares what
//     the bootstrap installed (the Helm releases, argocd-cm, the RBAC
//     policy, the AppProjects, the root, the token Secret) with what the
//     platform compiles to, reconciles a difference by running the
//     generated bootstrap again (its owners: Helm releases and roles;
//     platc itself writes only Workflows), and refuses to start when that
//     cannot run or Argo CD would still misjudge or refuse an app;
//   - validate only reads Application status and what the bootstrap
//     installed;
//   - teardown runs the teardown WorkflowTemplate, then reports what was
//     removed, what the volume policy kept, and what is left behind.
//
// The executor keeps no state: the platform source, the environment and
// the cluster say everything. A second run finds a run still in progress
// by its labels and follows it instead of starting a competing one, when
// it can tell the run is this platform's (it references the platform's own
// WorkflowTemplate and overrides nothing of it), and a
// re-run after a failure submits a new workflow whose steps skip every app
// already Synced and Healthy.
//
// It does not sync Applications itself, talk to the Argo CD API, or
// retry failed apps: the workflow's steps do that, under the workflow
// controller's retry and timeout rules.
package executor
