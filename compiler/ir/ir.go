package ir

import (
	"regexp"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Program is a platform compiled for one environment.
type Program struct {
	Platform Platform
	Env      Environment
	// Generator is the platc that compiled the program, as its caller
	// said; the compiler only carries it to the emitters.
	Generator Generator
	// Environments lists the names of every environment the platform
	// declares, in declaration order.
	Environments []string

	// Apps is every app in topological order: each app comes after all of
	// its dependencies, and apps that could go in either order are sorted
	// by name.
	Apps []*App
	// Stacks is every stack, sorted by name.
	Stacks []*Stack
	// Waves groups apps by the length of their longest dependency chain:
	// wave 0 has no dependencies, wave n depends on something in wave n-1.
	// Within a wave apps are sorted by name.
	Waves [][]*App
	// Classes is every class an app may use, built-in and declared,
	// sorted by name.
	Classes []*Class
	// Health is the health rule in force for every kind the platform uses
	// (custom_resources, plus rules that are always emitted), sorted by
	// kind.
	Health []*HealthRule
	// Events is nil unless the platform has an events block.
	Events *Events
	// Schedules run the deploy or validate workflow on a calendar, at
	// most one per action, sorted by action.
	Schedules []*Schedule
	// Alerts is nil unless the platform has an alerts block.
	Alerts *Alerts
	// Scope is what env.* and platform.* are in this environment, as
	// health rules (and their tests) see them.
	Scope Scope

	apps   map[string]*App
	stacks map[string]*Stack
	reach  *reachCache
}

// Index builds the lookup tables behind App and Stack, and readies the
// reachability Reaches answers from. The compiler calls it once; tests
// that build a Program by hand call it too.
func (p *Program) Index() {
	p.reach = &reachCache{}
	p.apps = make(map[string]*App, len(p.Apps))
	for _, a := range p.Apps {
		p.apps[a.Name] = a
	}
	p.stacks = make(map[string]*Stack, len(p.Stacks))
	for _, s := range p.Stacks {
		p.stacks[s.Name] = s
	}
}

// App returns the app called name, or nil.
func (p *Program) App(name string) *App { return p.apps[name] }

// Stack returns the stack called name, or nil.
func (p *Program) Stack(name string) *Stack { return p.stacks[name] }

// EdgeCount is the number of dependency edges between apps.
func (p *Program) EdgeCount() int {
	n := 0
	for _, a := range p.Apps {
		n += len(a.Deps)
	}
	return n
}

// Platform is the resolved platform block.
type Platform struct {
	Name      string
	ArgoCD    ArgoCD
	Workflows Workflows
	Git       Git
	Bootstrap Bootstrap
	// Credentials are the platform's credentials, in source order.
	Credentials []Credential
	DeclRange   hcl.Range
}

// CredentialType is the form of a credential file under the executor's
// secrets directory.
type CredentialType string

// The credential types.
const (
	// SSHKey is a Git SSH private key (OpenSSH or PEM), one file.
	SSHKey CredentialType = "ssh_key"
	// BasicAuth is a directory holding the files username and password (a
	// Git token is the password), for a Git or Helm repository over HTTP.
	BasicAuth CredentialType = "basic_auth"
	// DockerConfig is a .dockerconfigjson file, for image pull Secrets.
	DockerConfig CredentialType = "docker_config"
	// DNSToken is a DNS provider's API token, one file.
	DNSToken CredentialType = "dns_token"
)

// IsRepository reports whether the credential is one Argo CD uses to
// read a repository.
func (t CredentialType) IsRepository() bool { return t == SSHKey || t == BasicAuth }

// Credential is one credential the bootstrap turns into Secrets. Only the
// file holding it is named; its value never passes through platc.
type Credential struct {
	Name string
	Type CredentialType
	// Path is the file (a directory for BasicAuth) relative to the
	// secrets directory.
	Path string
	// URL is the repository Argo CD matches: one repository's URL, or,
	// with Template, the prefix of every repository the credential
	// template (Argo CD's repo-creds) serves. Empty for the other types.
	URL      string
	Template bool
	// RepoType is Argo CD's repository type, "git" or "helm".
	RepoType string
	// OCI marks a Helm repository in an OCI registry (enableOCI).
	OCI bool
	// SecretName is the Secret the bootstrap creates, in each of
	// Namespaces: Argo CD's namespace for a repository credential, the
	// namespaces the platform lists for the others.
	SecretName string
	Namespaces []string
	// Key is the DNSToken Secret's key; "token" unless set.
	Key       string
	DeclRange hcl.Range
}

// ArgoCD says how workflow steps reach the Argo CD API server.
type ArgoCD struct {
	Namespace string // default "argocd"
	Project   string // default "default"; apps may override
	Server    string // host:port; default argocd-server.<namespace>.svc:80
	Version   string // Argo CD version, such as "v3.5.1"; may be empty
	Insecure  bool
	// PlainText: the steps speak plain HTTP/2 and argocd-server runs with
	// server.insecure. The default when Server is not given.
	PlainText bool
	GRPCWeb   bool
	// ReconciliationTimeout is how long Argo CD leaves an app before it
	// compares it with Git again unasked (argocd-cm's
	// timeout.reconciliation); default DefaultReconciliationTimeout.
	ReconciliationTimeout time.Duration
	// AppsPerRoot is the most Applications one app-of-apps holds
	// (argocd.applications_per_root, default DefaultAppsPerRoot): a
	// platform with more gets a root of group roots (emit/internal/gitops).
	AppsPerRoot int
	// TokenSecret is the Secret holding the automation account's API
	// token, in the workflows namespace.
	TokenSecret SecretRef
}

// SecretRef names one key of a Kubernetes Secret.
type SecretRef struct {
	Name string
	Key  string
}

// Workflows says where the generated workflows run.
type Workflows struct {
	Namespace      string // default "argo"
	ServiceAccount string // default "platc-orchestrator"
	Parallelism    int    // default 10
	Image          string // step image; empty means the emitter's default
	// Timeout caps a whole workflow run; zero means the emitter derives
	// one from the apps' timeouts.
	Timeout time.Duration
	// NodeBudget is the most status nodes one Workflow may hold, counted
	// at worst (every retry used). Above it the emitter splits a workflow
	// into a parent and child workflows. The compiler sets it:
	// workflows.node_budget, by default DefaultNodeBudget.
	NodeBudget int
}

// DefaultAppsPerRoot and MaxAppsPerRoot bound the Applications one
// app-of-apps holds. Argo CD records each child twice on its parent, in
// status.resources and in the last sync's result, about 346 bytes per
// child with short names (measured at 10,001 children: a 3,461,399-byte
// status patch, which kube-apiserver's 2 MiB etcd limit refused). 2,000
// children keep the parent under 1 MiB even with 63-character names.
const (
	DefaultAppsPerRoot = 2000
	MaxAppsPerRoot     = 2000
)

// DefaultNodeBudget is the node budget of a Workflow (docs/workflows.md,
// "Object size and the node budget"). Argo's controller rewrites the
// whole Workflow, node status included, on every reconcile; measured on
// the real controller (make e2e-bench), a node's status takes about
// 1.6 KB of JSON (40 apps: 83 nodes, 139 KB). Counted at worst (every
// retry used), 1,000 nodes allow about 200 apps' deploy tasks, which take
// about 400 nodes, 0.65 MB, when no retry is needed: under the 1 MiB at
// which the controller starts gzipping node status on every write
// (MAX_WORKFLOW_SIZE), and, compressed, far under the size at which it
// gives up without a database to offload into.
const DefaultNodeBudget = 1000

// DefaultReconciliationTimeout is platform.argocd.reconciliation_timeout
// when the HCL says none. Argo CD compares every app with Git again after
// this long (plus up to a minute of jitter) even when nothing asked it
// to, and each such comparison writes the Application's status: at 1,000
// apps that periodic work was most of the application controller's CPU
// during a deploy (README, Performance). A deploy never waits for it, as
// each step refreshes its app, and a push reaches the cluster through a
// deploy (the events Sensor, or platc deploy), not through the poll.
const DefaultReconciliationTimeout = 10 * time.Minute

// Git is the repository generated output is committed to.
type Git struct {
	RepoURL  string
	Revision string // default "HEAD"
	Path     string // default "generated"
}

// The upstream Helm repositories of the bootstrap charts. The compiler
// fills them in when the platform names none; lint's
// custom-bootstrap-repository rule compares against them. They live in
// the IR because both stages read them and lint may not import the
// compiler.
const (
	UpstreamArgoRepo          = "https://argoproj.github.io/argo-helm"
	UpstreamSealedSecretsRepo = "https://bitnami-labs.github.io/sealed-secrets"
)

// ArgoWorkflowsVersion is the Argo Workflows release the bootstrap
// installs, whatever the argo-workflows chart's own appVersion: the
// release whose validation code platc checks every workflow with (go.mod
// pins its module) and whose argoexec and CLI the image carries. No
// argo-helm chart ships it (0.45.0 ships v3.6.0, 0.47.5 v3.7.11), so the
// generated values set the chart's images.tag, and the argo-workflows
// role tests the running controller's image.
const ArgoWorkflowsVersion = "v3.7.18"

// Bootstrap holds pinned chart versions and repositories for the
// orchestration primitives that Ansible installs. The compiler fills in
// pinned defaults for versions the platform leaves out, so every version
// here is set.
type Bootstrap struct {
	ArgoCDChart        string
	WorkflowsChart     string
	EventsChart        string
	SealedSecretsChart string
	ArgoRepo           string // default UpstreamArgoRepo
	SealedSecretsRepo  string // default UpstreamSealedSecretsRepo
	// ArgoCDAppsChart is the argo-helm argocd-apps chart version, the
	// Helm chart that creates the root Application and its AppProjects.
	ArgoCDAppsChart string
}

// Environment is the environment a Program was compiled for.
type Environment struct {
	Name string
	// Vars holds the environment's attributes (what env.* reads in
	// expressions), sorted by name, as JSON-compatible values.
	Vars []Var
	// Clusters are the environment's cluster blocks, sorted by name: the
	// clusters besides the in-cluster one that apps may deploy to.
	Clusters []*Cluster
}

// The cluster Argo CD runs in, which Argo CD always knows by these.
const (
	InClusterName   = "in-cluster"
	InClusterServer = "https://kubernetes.default.svc"
)

// Cluster is a cluster Argo CD knows, declared by an environment.
type Cluster struct {
	// Name is the name Argo CD knows the cluster by (its cluster
	// Secret's name field).
	Name string
	// Server is its API server URL; "" when the platform names it only.
	Server    string
	DeclRange hcl.Range
}

// Destination is the cluster an app's Application deploys to, said the
// way the app says it: by Name or by Server, exactly one set.
type Destination struct {
	Name, Server string
	// Cluster is the declared cluster; nil for the in-cluster one.
	Cluster *Cluster
}

// InCluster reports whether d is the cluster Argo CD runs in.
func (d Destination) InCluster() bool { return d.Cluster == nil }

// Var is one named value.
type Var struct {
	Name  string
	Value any
}

// Lookup returns the value of the environment attribute name.
func (e Environment) Lookup(name string) (any, bool) {
	for _, v := range e.Vars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return nil, false
}

// Stack is a resolved stack.
type Stack struct {
	Name        string
	Description string
	// Apps are the stack's apps in topological order.
	Apps []*App
	// DependsOn lists the stacks named in the stack's own depends_on,
	// sorted by name.
	DependsOn []*Stack
	NameRange hcl.Range
	DeclRange hcl.Range
}

// App is a resolved app.
type App struct {
	Name string
	// Index is the app's position in Program.Apps.
	Index int
	// Stack is the enclosing stack, or nil for an app outside any stack.
	Stack       *Stack
	Namespace   string
	Application string // Argo CD Application name; defaults to Name
	Project     string // Argo CD project
	Class       string // resolved class name, or "" when the app has none

	// Deps are the app's direct dependencies, in topological order.
	Deps []Dep
	// ResourceDeps are the resources of other apps this app waits for
	// (depends_on = [app.X.resource.R]), ordered by their app's position
	// and then by name. Each one's app is also in Deps: the reference
	// implies that edge.
	ResourceDeps []ResourceDep
	// Resources are the app's resource blocks, sorted by name.
	Resources []*Resource
	// Dependents are the apps that depend directly on this one, in
	// topological order: the reverse graph.
	Dependents []*App
	// Wave is the length of the app's longest dependency chain.
	Wave int

	Timeouts         Timeouts
	Retry            Retry
	Teardown         Teardown
	ExpectedDuration time.Duration
	// From says which level supplied each setting.
	From SettingSources

	// Source is nil when the app adopts an Application that exists
	// already; otherwise platc generates the Application. Source is the
	// first source and Sources all of them, in the order declared; an
	// Application with more than one has spec.sources.
	Source          *Source
	Sources         []*Source
	Sync            SyncPolicy
	CustomResources []CustomResource
	Hooks           []Hook

	// Annotations and Labels are the app's own, added to those platc
	// puts on the Application.
	Annotations map[string]string
	Labels      map[string]string
	// Info is spec.info, sorted by name.
	Info []Info
	// RevisionHistoryLimit is spec.revisionHistoryLimit; nil leaves
	// Argo CD's default (10).
	RevisionHistoryLimit *int64
	// Finalizer is the Application's resources finalizer, or
	// FinalizerNone.
	Finalizer         Finalizer
	IgnoreDifferences []IgnoreDifference
	// Destination is the cluster the Application deploys to; the
	// in-cluster one by server unless the app says otherwise.
	Destination Destination

	NameRange hcl.Range
	DeclRange hcl.Range
}

// Dep is one dependency edge, with the reference that created it.
type Dep struct {
	App *App
	// Range is the depends_on element that created the edge: app.X in the
	// app itself, or app.X / stack.Y in the enclosing stack's depends_on.
	Range hcl.Range
	// Via is the reference as written, such as "app.vault" or
	// "stack.storage".
	Via string
	// FromStack is true when the edge comes from the enclosing stack's
	// depends_on rather than the app's own.
	FromStack bool
}

// Resource is a resource node (RFC 5.1): one Kubernetes resource of an
// app that other apps may wait for, found among the resources the app's
// Application manages.
type Resource struct {
	// Name is the resource block's label.
	Name string
	App  *App
	// Group is the API group, "" for the core group.
	Group, Kind string
	// ResourceName is the object's metadata.name.
	ResourceName string
	// Namespace is the object's namespace; "" matches the one object of
	// that group, kind and name the Application manages, whatever its
	// namespace (a cluster-scoped one has none).
	Namespace string
	// Wait is what "ready" means for this kind, decided by the compiler.
	Wait ResourceWait
	// Timeout bounds the wait: the health timeout of the app, as the wait
	// starts once the app is Healthy.
	Timeout   time.Duration
	NameRange hcl.Range
	DeclRange hcl.Range
}

// ResourceWait is what a wait for a resource node waits for.
type ResourceWait string

const (
	// WaitHealthy: Argo CD reports the resource Healthy by its health
	// rule (platc's, the platform's or Argo CD's own).
	WaitHealthy ResourceWait = "healthy"
	// WaitExists: the kind has no status and Argo CD assesses no health
	// for it (a StorageClass, a ConfigMap): it is ready once it exists.
	WaitExists ResourceWait = "exists"
)

// Ref is the resource as depends_on names it: app.APP.resource.NAME.
func (r *Resource) Ref() string { return "app." + r.App.Name + ".resource." + r.Name }

// TaskName is the wait step's task in the deploy DAG, beside the apps'
// tasks; the compiler refuses an app of the same name.
func (r *Resource) TaskName() string { return "wait-" + r.App.Name + "-" + r.Name }

// KindKey is "group/Kind", or Kind for the core group.
func (r *Resource) KindKey() string {
	if r.Group == "" {
		return r.Kind
	}
	return r.Group + "/" + r.Kind
}

// ResourceDep is one depends_on element naming a resource node.
type ResourceDep struct {
	Resource *Resource
	Range    hcl.Range
}

// DependsOn reports whether a depends directly on b.
func (a *App) DependsOn(b *App) bool {
	for _, d := range a.Deps {
		if d.App == b {
			return true
		}
	}
	return false
}

// Timeouts bound the sync operation and the wait for health.
type Timeouts struct {
	Sync   time.Duration
	Health time.Duration
}

// Info is one entry of an Application's spec.info.
type Info struct{ Name, Value string }

// Finalizer is the resources finalizer an Application carries: with one,
// deleting the Application deletes what it deployed.
type Finalizer string

// Finalizers.
const (
	FinalizerNone       Finalizer = "none"
	FinalizerForeground Finalizer = "foreground"
	FinalizerBackground Finalizer = "background"
)

// IgnoreDifference is one ignore_differences block.
type IgnoreDifference struct {
	Group, Kind, Name, Namespace string
	JSONPointers                 []string
	JQPathExpressions            []string
	ManagedFieldsManagers        []string
}

// Retry is a deploy step's retry policy. Limit counts retries, so a step
// runs at most Limit+1 times.
type Retry struct {
	Limit      int
	Backoff    time.Duration
	Factor     int
	MaxBackoff time.Duration
}

// VolumePolicy says what teardown does with an app's persistent volumes.
type VolumePolicy string

// Volume policies (RFC 6.5); retain is the default.
const (
	VolumesRetain   VolumePolicy = "retain"
	VolumesDelete   VolumePolicy = "delete"
	VolumesSnapshot VolumePolicy = "snapshot"
)

// Teardown is an app's teardown policy.
type Teardown struct {
	Volumes VolumePolicy
	Timeout time.Duration
	// SnapshotClass is the VolumeSnapshotClass the snapshot policy uses;
	// empty means the cluster's default class.
	SnapshotClass string
}

// Level is where a setting came from, in precedence order.
type Level string

// Setting levels, highest precedence first.
const (
	FromApp      Level = "app"
	FromClass    Level = "class"
	FromStack    Level = "stack"
	FromDefaults Level = "defaults"
	FromBuiltIn  Level = "built-in"
)

// SettingSources records the level each resolved setting came from, so
// plan and lint can explain a value.
type SettingSources struct {
	SyncTimeout, HealthTimeout                 Level
	RetryLimit, Backoff, Factor, MaxBackoff    Level
	Volumes, TeardownTimeout, ExpectedDuration Level
	SnapshotClass                              Level
}

// Source is where an app's manifests come from.
type Source struct {
	RepoURL string
	// Chart is the Helm chart name for a chart repository source; empty
	// for a Git path source.
	Chart string
	// Version is the pinned chart version (chart sources).
	Version string
	// Path is the directory in RepoURL (Git sources).
	Path string
	// TargetRevision is the Git revision (Git sources).
	TargetRevision string
	// Ref names the source for the value files of other sources
	// ("$REF/path").
	Ref       string
	Helm      *Helm
	Kustomize *Kustomize
	Directory *Directory
	Plugin    *Plugin
	DeclRange hcl.Range
}

// Kustomize holds kustomize options.
type Kustomize struct {
	Images            []string
	NamePrefix        string
	NameSuffix        string
	CommonLabels      map[string]string
	CommonAnnotations map[string]string
	Namespace         string
	Components        []string
	Patches           []KustomizePatch
}

// KustomizePatch is one kustomize patch, inline or from a file.
type KustomizePatch struct {
	Patch, Path string
	Target      *PatchTarget
}

// PatchTarget selects what a kustomize patch applies to.
type PatchTarget struct {
	Group, Version, Kind, Name, Namespace, LabelSelector, AnnotationSelector string
}

// Directory holds the options of a plain directory source.
type Directory struct {
	Recurse          bool
	Include, Exclude string
	Jsonnet          *Jsonnet
}

// Jsonnet holds Jsonnet variables and library paths.
type Jsonnet struct {
	ExtVars, TLAs []JsonnetVar
	Libs          []string
}

// JsonnetVar is one Jsonnet variable. A string is passed as a string; any
// other value is passed as its JSON text with Code set, which Argo CD
// hands to Jsonnet as code: JSON is a subset of Jsonnet, so the text
// evaluates to exactly that data and nothing else.
type JsonnetVar struct {
	Name, Value string
	Code        bool
}

// Plugin is a config management plugin and what it is given.
type Plugin struct {
	Name       string
	Env        []Var
	Parameters []PluginParameter
}

// PluginParameter is one plugin parameter: a string, a list of strings
// or a map of strings, exactly one of them set.
type PluginParameter struct {
	Name   string
	String *string
	Array  []string
	Map    map[string]string
}

// IsChart reports whether the source is a Helm chart repository.
func (s *Source) IsChart() bool { return s.Chart != "" }

// Helm holds Helm parameters.
type Helm struct {
	// Values is the values tree as JSON-compatible Go values
	// (map[string]any, []any, string, json.Number, bool, nil).
	Values                  map[string]any
	ValueFiles              []string
	ReleaseName             string
	SkipCRDs                bool
	SkipTests               bool
	IgnoreMissingValueFiles bool
	PassCredentials         bool
	APIVersions             []string
	KubeVersion             string
	Parameters              []HelmParameter
	FileParameters          []HelmFileParameter
}

// HelmParameter is one Helm --set.
type HelmParameter struct {
	Name, Value string
	ForceString bool
}

// HelmFileParameter is one Helm --set-file.
type HelmFileParameter struct{ Name, Path string }

// SyncPolicy is the steady-state sync policy the app's deploy step
// switches on once the app has converged, and the sync options set at
// creation.
type SyncPolicy struct {
	Automated bool
	SelfHeal  bool
	Prune     bool
	Options   []string
	// Retry is Argo CD's retry of a failed sync, nil for none.
	Retry *SyncRetry
	// Namespace holds the managed namespace's metadata, nil for none.
	Namespace *NamespaceMetadata
}

// SyncRetry is syncPolicy.retry.
type SyncRetry struct {
	Limit      int
	Backoff    time.Duration
	Factor     int
	MaxBackoff time.Duration
	HasBackoff bool
}

// NamespaceMetadata is syncPolicy.managedNamespaceMetadata.
type NamespaceMetadata struct {
	Labels, Annotations map[string]string
}

// CustomResource is one kind listed in custom_resources.
type CustomResource struct {
	Group string
	Kind  string
	Range hcl.Range
}

// String returns "group/Kind".
func (c CustomResource) String() string { return c.Group + "/" + c.Kind }

// Hook is a declared Argo CD resource hook.
type Hook struct {
	Name     string
	Phase    string
	Purpose  string
	Manifest string // path as written, relative to the declaring file
	// Dir is the directory of the file that declared the hook, so
	// Manifest can be resolved.
	Dir       string
	DeclRange hcl.Range
}

// Class is a resolved class: built-in settings with any declared
// overrides applied.
type Class struct {
	Name        string
	Description string
	BuiltIn     bool // a built-in class (possibly overridden)
	Declared    bool // declared in the platform
	// Default is, for a built-in class, its RFC 3.8.5 timeouts before any
	// class block overrides them; lint compares overrides against it.
	Default          Timeouts
	Timeouts         Timeouts
	Retry            *Retry // nil: the class does not set retry
	ExpectedDuration time.Duration
	DeclRange        hcl.Range
}

// HealthOrigin says who provides a kind's health check.
type HealthOrigin string

// Health rule origins.
const (
	// HealthUser is a health block in the platform.
	HealthUser HealthOrigin = "user"
	// HealthBuiltIn is a rule from platc's built-in library.
	HealthBuiltIn HealthOrigin = "built-in"
	// HealthArgoCD is a check Argo CD ships itself; platc emits nothing.
	HealthArgoCD HealthOrigin = "argocd"
)

// HealthRule is the health check in force for one kind.
type HealthRule struct {
	Group  string
	Kind   string
	Origin HealthOrigin
	// Replaces is, for a user rule, the check the kind would have without
	// it: HealthBuiltIn, HealthArgoCD (in any Argo CD release that ships
	// one), or empty when nothing else covers the kind.
	Replaces HealthOrigin
	// Lua is the compiled Argo CD health script; empty for HealthArgoCD.
	Lua string
	// UseOpenLibs asks Argo CD to open Lua's standard libraries for this
	// script.
	UseOpenLibs bool
	DeclRange   hcl.Range
}

// Key is the kind as "group/Kind".
func (h *HealthRule) Key() string { return h.Group + "/" + h.Kind }

// Events configures the Argo Events trigger.
type Events struct {
	Type       string // "webhook" or "github"
	Namespace  string
	Port       int
	Endpoint   string
	Branch     string
	Repository string
	URL        string
	Secret     *SecretRef
}

// Schedule runs the WorkflowTemplate of one action on a cron schedule.
type Schedule struct {
	Action string // ScheduleDeploy or ScheduleValidate
	// Cron is a standard five-field expression or a descriptor such as
	// "@daily", without a timezone prefix.
	Cron string
	// Timezone is an IANA zone name; never empty, so that when a
	// schedule fires does not depend on the controller's clock setting.
	Timezone string
	// Concurrency is ConcurrencyForbid or ConcurrencyAllow.
	Concurrency string
	Suspend     bool
}

// Actions a schedule may run, and its concurrency policies.
const (
	ScheduleDeploy    = "deploy"
	ScheduleValidate  = "validate"
	ConcurrencyForbid = "forbid"
	ConcurrencyAllow  = "allow"
)

// Alerts configures the generated Prometheus alert rules.
type Alerts struct {
	// Namespace of the PrometheusRule.
	Namespace string
	// Labels go on the PrometheusRule, for the Prometheus' ruleSelector.
	Labels map[string]string
	// For is how long a condition holds before an alert fires.
	For time.Duration
	// Severity is the severity label of every alert.
	Severity string
}

// Scope holds the values of env.* and platform.* in one environment, as
// plain Go values (string, bool, float64, []any, map[string]any): env.*
// is the environment's attributes plus env.name, platform.* the name and
// the argocd, workflows and git fields general expressions see. The
// compiler builds it once; health.Scope has the same shape.
type Scope struct {
	Env      map[string]any
	Platform map[string]any
}

// Generator is the platc that compiles a program: an input, like the
// platform files, so that the output depends on nothing else.
type Generator struct {
	// Version is platc's version ("v1.2.0"); "" or anything that is not
	// a release (ReleasePattern) is a development build.
	Version string
	// ImageRepository is where this platc's release images are published
	// ("ghcr.io/OWNER/platc"); "" means the project's own.
	ImageRepository string
}

// ReleasePattern is the form of a released version: the tags the release
// workflow publishes images for (.github/workflows/release.yml checks its
// tag against this same expression).
const ReleasePattern = `^v[0-9]+\.[0-9]+\.[0-9]+$`

var releaseRE = regexp.MustCompile(ReleasePattern)

// Release reports whether g is a released platc, whose image exists.
func (g Generator) Release() bool { return releaseRE.MatchString(g.Version) }
