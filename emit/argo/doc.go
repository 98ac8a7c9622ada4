// Package argo emits the Argo Workflows layer of the RFC (sections 4.3,
// 5.3, 6.3, 6.5): generated/<env>/workflows/, built from the typed objects
// of github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1 and
// checked against Argo's own validation in the tests.
//
// # Files
//
//   - templates.yaml: ClusterWorkflowTemplate platc-argocd, every step
//     that talks to Argo CD: sync-and-wait, check-healthy, check-absent,
//     enable-auto-sync, delete-and-wait (with inspect-volumes,
//     snapshot-volume and delete-application), check-confirmation,
//     suspend-parents and orphan-report.
//   - deploy.yaml: WorkflowTemplate deploy. One DAG task per app, named
//     after it, whose depends is exactly the app's dependencies as bare
//     names ("a && b"): bare names also accept Skipped, which argo
//     resubmit --memoized turns earlier successes into. No continueOn: a
//     failed app omits its dependents and fails the workflow (INV-4).
//     After every app is Healthy, the step steady-state switches on
//     automated sync for exactly the apps whose sync block asks for it.
//   - teardown.yaml: WorkflowTemplate teardown. check-confirmation, then
//     suspend-parents, then the exact reverse DAG of delete-and-wait tasks,
//     then orphan-report.
//   - validate.yaml: WorkflowTemplate validate. check-healthy for every
//     app, with no dependencies and failFast off; read-only.
//   - rbac.yaml: the ServiceAccount platform.workflows.service_account,
//     and a Role with what Argo's executor needs and nothing else
//     (workflowtaskresults create, patch). When an app uses the snapshot
//     volume policy, also a ClusterRole to create and get
//     VolumeSnapshots.
//
// Everything is in platform.workflows.namespace except the
// ClusterWorkflowTemplate and the snapshot ClusterRole, which are
// cluster-scoped. The files reach the cluster through Argo CD: the root
// app creates the Application platc-workflows (WorkflowsApplication),
// which syncs this directory. No workflow deploys or deletes it.
//
// # Running them
//
// Submit a Workflow with workflowTemplateRef {name: deploy}, {name:
// validate} or {name: teardown} in the workflows namespace (argo submit
// --from workflowtemplate/deploy). Parameters:
//
//   - deploy: none.
//   - validate: none.
//   - teardown: confirm (required; must equal the platform's name, or the
//     first step fails and nothing is touched) and volumes (per-app, the
//     default, uses each app's teardown.volumes; retain, delete or
//     snapshot overrides it for every app).
//
// deploy and teardown, and the scoped Workflows of ScopedDeploy and
// ScopedTeardown, hold the mutex platc-<platform>, so no two of them run at
// once. Each workflow has activeDeadlineSeconds: platform.workflows.timeout
// when set, otherwise derived from the apps' own limits as Graham's bound
// for a greedy scheduler, (total worst-case work)/parallelism + the
// worst-case longest path, plus ten minutes: the longest it can take
// without something being stuck. Pods that succeed are deleted; failed
// ones are kept for their logs.
//
// # Steps
//
// Every step is a bash script run with the argocd CLI against the Argo CD
// API server (platform.argocd.server; --grpc-web, --insecure, --plaintext
// from the platform block through ARGOCD_OPTS), never --core and never by
// patching Application objects. The token comes from the Secret
// platform.argocd.token_secret through secretKeyRef, so the pods need no
// right to read Secrets. The scripts are constant text, the same for
// every platform: every value from the platform description reaches them
// as an input parameter mapped to an environment variable, never spliced
// into the script. Every argocd call is bounded: --timeout where the CLI
// has it, coreutils timeout otherwise.
//
// sync-and-wait is idempotent (ARGO-NOTES §2, INV-6): get --refresh; if an
// operation is running, wait for it; if the Application is Synced and
// Healthy, at the expected revision (a chart's version, or a pinned
// commit), and its last operation did not fail, do nothing; otherwise sync
// (unless automated sync is on, when only waiting is safe) and app wait
// --sync --health. Timeouts and the retry policy (limit, backoff, factor,
// cap; retryPolicy Always) come from the app's resolved settings, and each
// attempt has an activeDeadlineSeconds of twice the sync timeout plus the
// health timeout plus six minutes.
//
// delete-and-wait deletes with cascade and foreground propagation, bounded
// by the app's teardown timeout; an Application already gone
// (argocd app list -p PROJECT -o name) is success. Its volume policy:
//
//   - retain (the default, RFC 6.5): every PersistentVolumeClaim and
//     Namespace the Application manages gets
//     argocd.argoproj.io/sync-options: Delete=false, so the cascade leaves
//     it (with its data), and every StatefulSet it manages gets
//     persistentVolumeClaimRetentionPolicy.whenDeleted: Retain, so
//     Kubernetes keeps the claims it created. Nothing deletes a claim.
//   - delete: StatefulSets get whenDeleted: Delete, so Kubernetes deletes
//     the claims it created when the cascade deletes the StatefulSet; the
//     cascade deletes the claims Argo CD manages. Volumes are then
//     reclaimed as their StorageClass says.
//   - snapshot: first a VolumeSnapshot (snapshot.storage.k8s.io/v1, the
//     default snapshot class) of every claim in the Application's resource
//     tree, waiting until each is readyToUse; then as delete. Snapshots
//     are left for the operator to keep or remove.
//
// Claims an operator creates for its own custom resources (Rook, Strimzi,
// Zalando) follow that operator's policy; platc does not see them.
//
// suspend-parents finds, from Argo CD's tracking metadata, the
// app-of-apps that manages the platform's Applications and switches its
// automated sync off, so it does not re-create what teardown deletes.
// orphan-report exits 2 (the executor's "orphans remain") when
// Applications not declared by the platform are left in its projects, 1
// when a platform Application is still there, and writes the list to its
// output parameter orphans either way.
//
// # Image
//
// Steps run platform.workflows.image, or DefaultImage: platc's own image,
// with bash, jq, coreutils timeout and the argocd CLI at
// DefaultImageArgoCDVersion. The tag is pinned here, not taken from the
// running platc, so the output depends only on the input. Containers run
// as UID 65532 with a read-only root file system (HOME and scratch files
// in an emptyDir at /tmp), no privilege escalation and no capabilities.
//
// # Argo's limits
//
// A DAG template holds at most MaxTasks tasks and a workflow at most
// MaxTemplates templates (the v4 full CRDs enforce both). Up to 200 apps
// the deploy and teardown DAGs are flat and exactly the dependency graph.
// Beyond, apps are split into groups, each a DAG template, under a DAG of
// groups: a group waits for every group holding one of its apps'
// dependencies, so every app-level dependency is honoured, and the group
// graph is acyclic even when stacks depend on each other both ways.
// DeployGrouping tries grouping by stack (when the stack graph is acyclic)
// and contiguous slices of several topological orders (as soon as
// possible, as late as possible, by wave), evenly cut or cut by dynamic
// programming, and keeps the one with the shortest estimated duration;
// platc plan prints what it costs against the flat DAG. Argo's own
// validation does not check some of this, nor depends syntax or object
// names, so every object built here is also checked by this package
// before it is returned.
//
// Size is the other limit. Each app adds about 0.3 KB (as JSON) to
// deploy.yaml: 5,000 apps make a WorkflowTemplate of 1.4 MB, close to the
// 1.5 MiB etcd stores per object by default, and a running Workflow holds
// a copy of its template besides its node status. A single workflow of
// more than a few thousand apps therefore needs a larger etcd request
// limit; splitting a platform over several workflows is not implemented.
//
// # For the executor
//
// ScopedDeploy and ScopedTeardown build the Workflows for
// TARGET_SCOPE=stack:<name> or app:<name>: checks of the scope's outside
// neighbours first (dependencies Healthy for a deploy, dependents gone for
// a teardown), then the scope's own DAG. Their zero Status marshals
// startedAt and finishedAt as null, which the Workflow CRD schema refuses:
// submit them without a status. A scoped teardown declares the parameters
// confirm (set it to the platform's name) and volumes.
//
// # Argo CD permissions
//
// The automation account needs get, sync and delete on the platform's
// Applications, update on those that ask for automated sync, and
// gitops.TeardownResourceActions; the Argo CD values emitter grants exactly
// that.
//
// This package does not write files (see the build command), does not
// emit Argo CD Applications or Argo Events objects (other emitters do),
// and does not submit or follow workflows (the executor does).
package argo
