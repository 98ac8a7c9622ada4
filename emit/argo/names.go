package argo

import (
	"github.com/platc/platc/emit/internal/gitops"
	"github.com/platc/platc/plan"
)

// Names of the objects and templates this package emits. They are fixed
// so that the executor, the Argo Events sensor and people can refer to
// them; those the other emitters also name are gitops's.
const (
	// ClusterTemplate is the ClusterWorkflowTemplate holding the steps
	// that talk to Argo CD.
	ClusterTemplate = gitops.ClusterTemplate
	// DeployTemplate, TeardownTemplate and ValidateTemplate are the
	// WorkflowTemplates in platform.workflows.namespace. Submit a Workflow
	// with workflowTemplateRef {name: <one of these>} to run them.
	DeployTemplate   = gitops.DeployTemplate
	TeardownTemplate = gitops.TeardownTemplate
	ValidateTemplate = gitops.ValidateTemplate
	// WorkflowsApplication is the Argo CD Application, created by the
	// root app, that syncs generated/<env>/workflows/ to the cluster. No
	// workflow deploys or deletes it.
	WorkflowsApplication = gitops.WorkflowsApp
	// ExecutorRole is the Role (and RoleBinding) the workflow pods need.
	ExecutorRole = "platc-workflow-executor"
	// SnapshotRole is the ClusterRole (and ClusterRoleBinding) that lets
	// teardown create VolumeSnapshots; emitted only when an app uses the
	// snapshot volume policy.
	SnapshotRole = "platc-volume-snapshots"
)

// Templates of ClusterTemplate.
const (
	tmplSyncAndWait   = "sync-and-wait"
	tmplCheckHealthy  = "check-healthy"
	tmplCheckAbsent   = "check-absent"
	tmplDeleteAndWait = "delete-and-wait"
	tmplInspect       = "inspect-volumes"
	tmplSnapshot      = "snapshot-volume"
	tmplSnapshots     = "snapshot-volumes"
	tmplSnapshotClass = "snapshot-volume-of-class"
	tmplFindClaims    = "find-claims"
	tmplDeleteApp     = "delete-application"
	tmplConfirm       = "check-confirmation"
	tmplSuspend       = "suspend-parents"
	tmplOrphans       = "orphan-report"
	tmplFindParents   = "find-parents"
	tmplOrphanRows    = "orphan-rows"
	tmplWaitResource  = "wait-resource"
)

// Templates local to one workflow. Group templates are named groupPrefix
// plus a number, which cannot collide with these.
const (
	tmplMain    = "main"
	tmplApps    = "apps"
	tmplChecks  = "checks"
	groupPrefix = "group-"
)

// Workflow parameters.
const (
	// ParamConfirm must equal the platform's name for teardown to run.
	ParamConfirm = "confirm"
	// ParamVolumes overrides every app's volume policy in a teardown:
	// per-app (the default), retain, delete or snapshot.
	ParamVolumes = "volumes"
	// VolumesPerApp is ParamVolumes' default: each app's own policy.
	VolumesPerApp = "per-app"
)

// Labels put on every emitted object and on the workflows the templates
// create. platc.io/workflow is what the bootstrap and the push sensor
// label the deploy workflows they submit with, and what the bootstrap
// looks for to avoid starting a second deploy; since the templates put it
// on every workflow they create, that holds whoever submits them.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	labelPlatform  = "platc.io/platform"
	labelAction    = "platc.io/workflow"
)

// Argo Workflows' limits: the v4 full CRDs cap a DAG at
// 200 tasks and a workflow at 200 templates.
const (
	MaxTasks     = 200
	MaxTemplates = 200
)

// Limits are Argo's limits as plan lays out a deploy or teardown DAG
// within them: besides main and the top DAG, every template may be a
// group. The confirm, suspend and report steps are ClusterTemplate
// references (or, inlined in a scoped workflow, counted by the caller).
var Limits = limits(MaxTemplates - 2)

// limits are Argo's limits for a workflow with room for groups group
// templates.
func limits(groups int) plan.Limits {
	return plan.Limits{Engine: "Argo Workflows", Workflow: "Argo workflow", Tasks: MaxTasks, Groups: groups}
}

// The step image when platform.workflows.image is not set is platc's own
// image, which carries bash, jq, coreutils and the argocd CLI at
// DefaultImageArgoCDVersion (scripts/image-tools.txt lists them; the
// release workflow checks the published image against that list).
const (
	// ImageRepository is where the project's release workflow publishes
	// the image; a platc stamped with another repository names that one.
	ImageRepository = "ghcr.io/platc/platc"
	// DevImageTag is the tag named by a platc that is not a release. No
	// image is published under it: a development build's output must say
	// so rather than borrow a release's image, whose tools may differ.
	DevImageTag               = "dev"
	DefaultImageArgoCDVersion = "v3.2.6"
)
