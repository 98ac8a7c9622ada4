package lang

import (
	"github.com/hashicorp/hcl/v2"
)

// Module is one parsed platform: every file and every top-level block, in
// file-name then declaration order.
type Module struct {
	// Files maps each parsed file name to its parsed form, so renderers can
	// print source snippets.
	Files map[string]*hcl.File
	// FileNames lists the files in the order they were read (sorted).
	FileNames []string
	// Dir is the platform directory (for a single file, its directory).
	// Every path an attribute names must stay inside it. ParseSources
	// sets it to the directory of the first file; Parse to the directory
	// it was given.
	Dir string

	Platform     *Platform
	Environments []*Environment
	Defaults     *Defaults
	Classes      []*Class
	Stacks       []*Stack
	// Apps holds every app, whether declared inside a stack or at top
	// level, in declaration order.
	Apps   []*App
	Health []*Health
	Events *Events
	// Schedules are the schedule blocks, in declaration order.
	Schedules []*Schedule
	Alerts    *Alerts
}

// Platform is the platform block: the name of the platform and where the
// orchestration primitives live.
type Platform struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range

	ArgoCD    *ArgoCD
	Workflows *Workflows
	Git       *Git
	Bootstrap *Bootstrap
	// Credentials are the platform's credential blocks, in source order.
	Credentials []*Credential
}

// Credential is platform.credential "NAME": a private repository, image
// registry or DNS provider and the file under the executor's secrets
// directory that holds its credential. Only the file is named; platc
// never reads a secret value at compile time.
type Credential struct {
	Name       string
	NameRange  hcl.Range
	Type       *hcl.Attribute
	Path       *hcl.Attribute
	RepoURL    *hcl.Attribute
	URLPrefix  *hcl.Attribute
	Namespaces *hcl.Attribute
	Key        *hcl.Attribute
	DeclRange  hcl.Range
}

// ArgoCD is platform.argocd: how workflows reach the Argo CD API server.
type ArgoCD struct {
	Namespace *hcl.Attribute
	Project   *hcl.Attribute
	Server    *hcl.Attribute
	Version   *hcl.Attribute
	Insecure  *hcl.Attribute
	PlainText *hcl.Attribute
	GRPCWeb   *hcl.Attribute
	// ReconciliationTimeout is argocd-cm's timeout.reconciliation.
	ReconciliationTimeout *hcl.Attribute
	// ApplicationsPerRoot bounds the Applications one app-of-apps holds.
	ApplicationsPerRoot *hcl.Attribute
	TokenSecret         *SecretRef
	DeclRange           hcl.Range
}

// SecretRef names a key of a Kubernetes Secret. platc never carries secret
// values, only references to them.
type SecretRef struct {
	Name      *hcl.Attribute
	Key       *hcl.Attribute
	DeclRange hcl.Range
}

// Workflows is platform.workflows: where the generated workflows run.
type Workflows struct {
	Namespace      *hcl.Attribute
	ServiceAccount *hcl.Attribute
	Parallelism    *hcl.Attribute
	Image          *hcl.Attribute
	Timeout        *hcl.Attribute
	NodeBudget     *hcl.Attribute
	DeclRange      hcl.Range
}

// Git is platform.git: the repository the generated output is committed to.
type Git struct {
	RepoURL   *hcl.Attribute
	Revision  *hcl.Attribute
	Path      *hcl.Attribute
	DeclRange hcl.Range
}

// Bootstrap is platform.bootstrap: pinned chart versions (and optional
// repositories) for the primitives Ansible installs.
type Bootstrap struct {
	ArgoCDChart        *hcl.Attribute
	WorkflowsChart     *hcl.Attribute
	EventsChart        *hcl.Attribute
	SealedSecretsChart *hcl.Attribute
	ArgoRepo           *hcl.Attribute
	SealedSecretsRepo  *hcl.Attribute
	// ArgoCDAppsChart pins the argo-helm argocd-apps chart, which creates
	// the root Application (Helm is the only install method, RFC 6.2.1).
	ArgoCDAppsChart *hcl.Attribute
	DeclRange       hcl.Range
}

// Environment is one environment block. Its attributes are open: each one
// becomes env.<name> in expressions.
type Environment struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	Attrs     hcl.Attributes
	// Clusters are the Argo CD clusters apps of this environment may
	// deploy to besides the one Argo CD runs in.
	Clusters []*Cluster
}

// Cluster is one cluster block of an environment: a cluster Argo CD
// knows, by the name it knows it by, and its API server.
type Cluster struct {
	Name      string
	NameRange hcl.Range
	Server    *hcl.Attribute
	DeclRange hcl.Range
}

// Settings are the tunables that defaults, classes, stacks and apps may
// all set; precedence is app > class > stack > defaults > built-in.
type Settings struct {
	Timeouts         *Timeouts
	Retry            *Retry
	Teardown         *Teardown
	ExpectedDuration *hcl.Attribute
}

// Timeouts bounds one app's sync and health wait.
type Timeouts struct {
	Sync      *hcl.Attribute
	Health    *hcl.Attribute
	DeclRange hcl.Range
}

// Retry is the retry policy of one app's deploy step.
type Retry struct {
	Limit      *hcl.Attribute
	Backoff    *hcl.Attribute
	Factor     *hcl.Attribute
	MaxBackoff *hcl.Attribute
	DeclRange  hcl.Range
}

// Teardown is the teardown policy of one app.
type Teardown struct {
	Volumes *hcl.Attribute
	Timeout *hcl.Attribute
	// SnapshotClass names the VolumeSnapshotClass of the snapshot policy.
	SnapshotClass *hcl.Attribute
	DeclRange     hcl.Range
}

// Defaults is the defaults block.
type Defaults struct {
	Settings
	DeclRange hcl.Range
}

// Class is a class block: a named set of settings, overriding the built-in
// class of the same name if there is one.
type Class struct {
	Name        string
	NameRange   hcl.Range
	DeclRange   hcl.Range
	Description *hcl.Attribute
	Settings
}

// Stack is a stack block: a group of apps deployed all or nothing.
type Stack struct {
	Name        string
	NameRange   hcl.Range
	DeclRange   hcl.Range
	Description *hcl.Attribute
	Class       *hcl.Attribute
	DependsOn   []Ref
	Settings
	Apps []*App
}

// App is one app block, inside a stack or at top level.
type App struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Stack is the enclosing stack, or nil for an app at top level.
	Stack *Stack

	Namespace       *hcl.Attribute
	Class           *hcl.Attribute
	Project         *hcl.Attribute
	Application     *hcl.Attribute
	CustomResources *hcl.Attribute
	DependsOn       []Ref
	// Annotations and Labels are added to the app's Application.
	Annotations *hcl.Attribute
	Labels      *hcl.Attribute
	// Info is the Application's spec.info, a map of name to value.
	Info                 *hcl.Attribute
	RevisionHistoryLimit *hcl.Attribute
	// Finalizer chooses the Application's resources finalizer.
	Finalizer *hcl.Attribute
	// Cluster is the destination cluster, by name or API server URL.
	Cluster *hcl.Attribute
	Settings
	// Source is the first source block, Sources all of them in order:
	// an Application with several sources (a chart and the Git
	// repository its values files come from) has one block for each.
	Source            *Source
	Sources           []*Source
	Sync              *Sync
	Hooks             []*Hook
	IgnoreDifferences []*IgnoreDifferences
	// Resources are the app's resource blocks: resources inside the app
	// that other apps may depend on (RFC 5.1 resource nodes).
	Resources []*Resource
}

// Resource is a resource "NAME" block: one Kubernetes resource the app
// deploys, which another app can wait for with
// depends_on = [app.APP.resource.NAME].
type Resource struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Kind is "GROUP/Kind", or a bare Kind for the core group.
	Kind         *hcl.Attribute
	ResourceName *hcl.Attribute // the resource's metadata.name
	Namespace    *hcl.Attribute
}

// IgnoreDifferences is one ignore_differences block: the fields of some
// resources that Argo CD leaves out when it compares Git with the cluster.
type IgnoreDifferences struct {
	Group, Kind, Name, Namespace                           *hcl.Attribute
	JSONPointers, JQPathExpressions, ManagedFieldsManagers *hcl.Attribute
	DeclRange                                              hcl.Range
}

// Source is where an app's manifests come from. With a source, platc
// generates the app's Argo CD Application.
type Source struct {
	RepoURL        *hcl.Attribute
	Chart          *hcl.Attribute
	Version        *hcl.Attribute
	Path           *hcl.Attribute
	TargetRevision *hcl.Attribute
	// Ref names the source, so that another source's value files can
	// read files from it as "$NAME/path".
	Ref       *hcl.Attribute
	Helm      *Helm
	Kustomize *Kustomize
	Directory *Directory
	Plugin    *Plugin
	DeclRange hcl.Range
}

// Helm holds Helm parameters of a source.
type Helm struct {
	Values                  *hcl.Attribute
	ValueFiles              *hcl.Attribute
	ReleaseName             *hcl.Attribute
	SkipCRDs                *hcl.Attribute
	SkipTests               *hcl.Attribute
	IgnoreMissingValueFiles *hcl.Attribute
	PassCredentials         *hcl.Attribute
	APIVersions             *hcl.Attribute
	KubeVersion             *hcl.Attribute
	Parameters              []*HelmParameter
	FileParameters          []*HelmFileParameter
	DeclRange               hcl.Range
}

// HelmParameter is a parameter block: one --set of Helm.
type HelmParameter struct {
	Name, Value, ForceString *hcl.Attribute
	DeclRange                hcl.Range
}

// HelmFileParameter is a file_parameter block: one --set-file of Helm.
type HelmFileParameter struct {
	Name, Path *hcl.Attribute
	DeclRange  hcl.Range
}

// Kustomize holds the kustomize options of a source.
type Kustomize struct {
	Images, NamePrefix, NameSuffix  *hcl.Attribute
	CommonLabels, CommonAnnotations *hcl.Attribute
	Namespace, Components           *hcl.Attribute
	Patches                         []*KustomizePatch
	DeclRange                       hcl.Range
}

// KustomizePatch is a patch block of kustomize.
type KustomizePatch struct {
	Patch, Path *hcl.Attribute
	Target      *PatchTarget
	DeclRange   hcl.Range
}

// PatchTarget selects the resources a kustomize patch applies to.
type PatchTarget struct {
	Group, Version, Kind, Name, Namespace *hcl.Attribute
	LabelSelector, AnnotationSelector     *hcl.Attribute
	DeclRange                             hcl.Range
}

// Directory holds the options of a plain directory source.
type Directory struct {
	Recurse, Include, Exclude *hcl.Attribute
	Jsonnet                   *Jsonnet
	DeclRange                 hcl.Range
}

// Jsonnet holds the Jsonnet options of a directory source. A variable is
// a string or a typed value the compiler passes as JSON, never Jsonnet
// code an HCL author wrote.
type Jsonnet struct {
	ExtVars, TLAs, Libs *hcl.Attribute
	DeclRange           hcl.Range
}

// Plugin names the config management plugin that renders a source.
type Plugin struct {
	Name, Env, Parameters *hcl.Attribute
	DeclRange             hcl.Range
}

// Sync is the steady-state sync policy that the app's deploy step switches
// on once the app has converged (never at creation, INV-2), plus sync
// options.
type Sync struct {
	Automated *hcl.Attribute
	SelfHeal  *hcl.Attribute
	Prune     *hcl.Attribute
	Options   *hcl.Attribute
	// Retry is Argo CD's own retry of a failed sync (syncPolicy.retry),
	// not the deploy step's retry block.
	Retry *Retry
	// ManagedNamespace is the labels and annotations Argo CD puts on the
	// namespace it creates (syncPolicy.managedNamespaceMetadata).
	ManagedNamespace *ManagedNamespace
	DeclRange        hcl.Range
}

// ManagedNamespace is a managed_namespace_metadata block.
type ManagedNamespace struct {
	Labels, Annotations *hcl.Attribute
	DeclRange           hcl.Range
}

// Hook declares one Argo CD resource hook an app is allowed to carry.
type Hook struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	Phase     *hcl.Attribute
	Purpose   *hcl.Attribute
	Manifest  *hcl.Attribute
}

// Health is a health "GROUP/Kind" block: expressions over obj that decide a
// resource's health, compiled to Argo CD Lua.
type Health struct {
	Kind      string
	KindRange hcl.Range
	DeclRange hcl.Range

	Healthy            *hcl.Attribute
	Degraded           *hcl.Attribute
	Suspended          *hcl.Attribute
	Message            *hcl.Attribute
	ObservedGeneration *hcl.Attribute
	Tests              []*HealthTest
}

// HealthTest is a test block inside a health block.
type HealthTest struct {
	Name        string
	NameRange   hcl.Range
	DeclRange   hcl.Range
	Object      *hcl.Attribute
	Want        *hcl.Attribute
	WantMessage *hcl.Attribute
	// Env overrides env.* attributes for this test only, so a rule that
	// reads an environment setting can be tested under each value.
	Env *hcl.Attribute
}

// Events is the events block: submit the deploy workflow on a push to the
// platform repository.
type Events struct {
	Type       *hcl.Attribute
	Namespace  *hcl.Attribute
	Port       *hcl.Attribute
	Endpoint   *hcl.Attribute
	Branch     *hcl.Attribute
	Repository *hcl.Attribute
	URL        *hcl.Attribute
	Secret     *SecretRef
	DeclRange  hcl.Range
}

// Schedule is a schedule block: run the deploy or validate workflow on a
// cron schedule. Action is the block's label.
type Schedule struct {
	Action      string
	ActionRange hcl.Range
	Cron        *hcl.Attribute
	Timezone    *hcl.Attribute
	Concurrency *hcl.Attribute
	Suspend     *hcl.Attribute
	DeclRange   hcl.Range
}

// Alerts is the alerts block: generate Prometheus alert rules on the
// executor's and Argo CD's metrics.
type Alerts struct {
	Namespace *hcl.Attribute
	Labels    *hcl.Attribute
	For       *hcl.Attribute
	Severity  *hcl.Attribute
	DeclRange hcl.Range
}

// RefKind is what a depends_on reference points at.
type RefKind string

// Reference kinds of depends_on.
const (
	RefApp   RefKind = "app"
	RefStack RefKind = "stack"
)

// Ref is one parsed depends_on element, such as app.ceph-operator, or
// app.ceph-cluster.resource.block-storage for one resource of an app.
type Ref struct {
	Kind RefKind
	Name string
	// Resource names a resource block of app Name (app.NAME.resource.R);
	// "" for a dependency on the whole app or stack.
	Resource string
	Range    hcl.Range
}

// String returns the reference as written: "app.NAME", "stack.NAME" or
// "app.NAME.resource.R".
func (r Ref) String() string {
	if r.Resource != "" {
		return string(r.Kind) + "." + r.Name + ".resource." + r.Resource
	}
	return string(r.Kind) + "." + r.Name
}
