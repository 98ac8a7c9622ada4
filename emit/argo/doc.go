// Package argo emits the Argo Workflows layer of the RFC (sections 4.3,
// 5.3, 6.3, 6.5): generated/<env>/workflows/ (the ClusterWorkflowTemplate
// of Argo CD steps, the deploy, teardown and validate WorkflowTemplates,
// their RBAC), built from Argo's own typed objects (Build) and checked
// against Argo's validation in the tests; and, for the executor, the
// Workflows of a scoped deploy or teardown (ScopedDeploy,
// ScopedTeardown). docs/workflows.md is the operations manual: what each
// file holds, how to run the workflows, what every step does, and how a
// large platform fits Argo's limits.
//
// It does not decide how a large DAG is split into groups: package plan
// does, given Argo's limits as numbers (Limits), and this package turns
// the chosen grouping into templates. It does not write files (see the
// build command), emit Argo CD Applications or Argo Events objects (other
// emitters do), or submit and follow workflows (the executor does).
package argo
