package gitops

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/ir"
)

// Names of the objects platc itself owns. The workflows, the executor and
// the bootstrap find each other through these names, so they are fixed
// rather than derived from the platform.
const (
	// RootApp is the root app-of-apps.
	RootApp = "platc-root"
	// WorkflowsApp syncs generated/<env>/workflows/.
	WorkflowsApp = "platc-workflows"
	// EventsApp syncs generated/<env>/events/.
	EventsApp = "platc-events"
	// AlertsApp syncs generated/<env>/alerts/.
	AlertsApp = "platc-alerts"
	// Project is the AppProject of the three Applications above. It is
	// not the platform's project, so the automation account, which may
	// sync and delete everything in the platform's project, cannot touch
	// the machinery that deploys the platform.
	Project = "platc-orchestration"
	// Account is the Argo CD local account the workflows authenticate as.
	Account = "platc"
	// Role is the Argo CD RBAC role granted to Account.
	Role = "role:platc-orchestrator"
	// InClusterServer is the Kubernetes API server Argo CD runs in.
	InClusterServer = ir.InClusterServer
)

// Names of the Argo Workflows templates that generated/<env>/workflows/
// holds. The bootstrap waits for them and submits DeployTemplate; the
// Argo Events sensor submits DeployTemplate too.
const (
	DeployTemplate   = "deploy"
	ValidateTemplate = "validate"
	TeardownTemplate = "teardown"
	ClusterTemplate  = "platc-argocd"
)

// Paths of the generated tree, relative to generated/<env>/.
const (
	AppsDir      = "argocd/apps"
	WorkflowsDir = "workflows"
	EventsDir    = "events"
	AlertsDir    = "alerts"
	ValuesFile   = "argocd/values.yaml"
)

// Recipe pointers for the root app's ignoreDifferences (docs/workflows.md).
const (
	// AutomatedPointer ignores the whole automated block: safe on every
	// Argo CD version, because the child Applications carry no automated
	// block at all until the deploy workflow adds one.
	AutomatedPointer = "/spec/syncPolicy/automated"
	// EnabledPointer ignores only automated.enabled (Argo CD v3.1+), so
	// prune and selfHeal stay under Git's control.
	EnabledPointer = "/spec/syncPolicy/automated/enabled"
)

// Labels and annotations of the Application of a platform app. The
// label selector finds the Applications platc generated for one platform
// and environment, including those whose app has left the HCL (the root
// has no prune, so they stay); the annotations record what deleting such
// an Application needs once the HCL no longer says it: the order (the
// dependencies it had) and the app's teardown settings.
const (
	LabelManagedBy   = "app.kubernetes.io/managed-by"
	LabelPartOf      = "app.kubernetes.io/part-of" // the platform's name
	LabelStack       = "platc.io/stack"
	LabelEnvironment = "platc.io/environment"
	// LabelApp is the app's name; only Applications of platform apps
	// carry it, not the root or platc's own Applications.
	LabelApp = "platc.io/app"
	// AnnotationDependsOn holds the Application names of the app's direct
	// dependencies, sorted, comma-separated; empty for none.
	AnnotationDependsOn = "platc.io/depends-on"
	// AnnotationVolumes is the app's teardown volume policy.
	AnnotationVolumes = "platc.io/teardown-volumes"
	// AnnotationTimeout is the app's teardown timeout, as ir.FormatDuration
	// writes it (time.ParseDuration reads it back).
	AnnotationTimeout = "platc.io/teardown-timeout"
	// ManagedBy is LabelManagedBy's value.
	ManagedBy = "platc"
)

// Meta is the part of ObjectMeta platc sets.
type Meta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Finalizers  []string          `json:"finalizers,omitempty"`
}

// Application is an argoproj.io/v1alpha1 Application.
type Application struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   Meta            `json:"metadata"`
	Spec       ApplicationSpec `json:"spec"`
}

// ApplicationSpec is the part of an Application's spec platc sets.
// Source is set for one source and Sources for several, never both.
type ApplicationSpec struct {
	Project              string             `json:"project"`
	Source               *Source            `json:"source,omitempty"`
	Sources              []Source           `json:"sources,omitempty"`
	Destination          Destination        `json:"destination"`
	SyncPolicy           *SyncPolicy        `json:"syncPolicy,omitempty"`
	IgnoreDifferences    []IgnoreDifference `json:"ignoreDifferences,omitempty"`
	Info                 []Info             `json:"info,omitempty"`
	RevisionHistoryLimit *int64             `json:"revisionHistoryLimit,omitempty"`
}

// Info is one entry of spec.info.
type Info struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Source is a Helm chart in a chart repository, or a path in a Git
// repository, or (with Ref only) a Git repository other sources read
// values files from.
type Source struct {
	RepoURL        string           `json:"repoURL"`
	Chart          string           `json:"chart,omitempty"`
	Path           string           `json:"path,omitempty"`
	TargetRevision string           `json:"targetRevision"`
	Ref            string           `json:"ref,omitempty"`
	Helm           *HelmSource      `json:"helm,omitempty"`
	Kustomize      *KustomizeSource `json:"kustomize,omitempty"`
	Directory      *DirectorySource `json:"directory,omitempty"`
	Plugin         *PluginSource    `json:"plugin,omitempty"`
}

// HelmSource holds Helm parameters. Values go in valuesObject, a real
// YAML tree rather than a string of YAML, so diffs of generated files read
// like diffs of the HCL.
type HelmSource struct {
	ReleaseName             string              `json:"releaseName,omitempty"`
	ValueFiles              []string            `json:"valueFiles,omitempty"`
	ValuesObject            map[string]any      `json:"valuesObject,omitempty"`
	Parameters              []HelmParameter     `json:"parameters,omitempty"`
	FileParameters          []HelmFileParameter `json:"fileParameters,omitempty"`
	SkipCRDs                bool                `json:"skipCrds,omitempty"`
	SkipTests               bool                `json:"skipTests,omitempty"`
	IgnoreMissingValueFiles bool                `json:"ignoreMissingValueFiles,omitempty"`
	PassCredentials         bool                `json:"passCredentials,omitempty"`
	APIVersions             []string            `json:"apiVersions,omitempty"`
	KubeVersion             string              `json:"kubeVersion,omitempty"`
}

// HelmParameter is one Helm --set.
type HelmParameter struct {
	Name        string `json:"name"`
	Value       string `json:"value"`
	ForceString bool   `json:"forceString,omitempty"`
}

// HelmFileParameter is one Helm --set-file.
type HelmFileParameter struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// KustomizeSource holds kustomize options.
type KustomizeSource struct {
	NamePrefix        string            `json:"namePrefix,omitempty"`
	NameSuffix        string            `json:"nameSuffix,omitempty"`
	Images            []string          `json:"images,omitempty"`
	CommonLabels      map[string]string `json:"commonLabels,omitempty"`
	CommonAnnotations map[string]string `json:"commonAnnotations,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	Components        []string          `json:"components,omitempty"`
	Patches           []KustomizePatch  `json:"patches,omitempty"`
}

// KustomizePatch is one kustomize patch.
type KustomizePatch struct {
	Path   string           `json:"path,omitempty"`
	Patch  string           `json:"patch,omitempty"`
	Target *KustomizeTarget `json:"target,omitempty"`
}

// KustomizeTarget selects what a patch applies to.
type KustomizeTarget struct {
	Group              string `json:"group,omitempty"`
	Version            string `json:"version,omitempty"`
	Kind               string `json:"kind,omitempty"`
	Name               string `json:"name,omitempty"`
	Namespace          string `json:"namespace,omitempty"`
	LabelSelector      string `json:"labelSelector,omitempty"`
	AnnotationSelector string `json:"annotationSelector,omitempty"`
}

// DirectorySource holds the options of a plain directory.
type DirectorySource struct {
	Recurse bool           `json:"recurse,omitempty"`
	Include string         `json:"include,omitempty"`
	Exclude string         `json:"exclude,omitempty"`
	Jsonnet *JsonnetSource `json:"jsonnet,omitempty"`
}

// JsonnetSource holds Jsonnet variables and libraries.
type JsonnetSource struct {
	ExtVars []JsonnetVar `json:"extVars,omitempty"`
	TLAs    []JsonnetVar `json:"tlas,omitempty"`
	Libs    []string     `json:"libs,omitempty"`
}

// JsonnetVar is a Jsonnet variable; with Code, Value is JSON the
// compiler wrote (data, never an author's Jsonnet).
type JsonnetVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Code  bool   `json:"code,omitempty"`
}

// PluginSource names a config management plugin.
type PluginSource struct {
	Name       string            `json:"name,omitempty"`
	Env        []EnvEntry        `json:"env,omitempty"`
	Parameters []PluginParameter `json:"parameters,omitempty"`
}

// EnvEntry is one variable of a plugin's environment.
type EnvEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PluginParameter is one plugin parameter.
type PluginParameter struct {
	Name   string            `json:"name"`
	String *string           `json:"string,omitempty"`
	Array  []string          `json:"array,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// Destination is where an Application deploys to: a cluster by server
// or by name, and a namespace. In an AppProject an entry with both
// allows the cluster however an Application names it.
type Destination struct {
	Server    string `json:"server,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace"`
}

// SyncPolicy is an Application's sync policy.
type SyncPolicy struct {
	Automated                *Automated         `json:"automated,omitempty"`
	SyncOptions              []string           `json:"syncOptions,omitempty"`
	Retry                    *RetryStrategy     `json:"retry,omitempty"`
	ManagedNamespaceMetadata *NamespaceMetadata `json:"managedNamespaceMetadata,omitempty"`
}

// RetryStrategy is syncPolicy.retry.
type RetryStrategy struct {
	Limit   int64    `json:"limit"`
	Backoff *Backoff `json:"backoff,omitempty"`
}

// Backoff is a retry's backoff. Durations are Go duration strings.
type Backoff struct {
	Duration    string `json:"duration,omitempty"`
	Factor      *int64 `json:"factor,omitempty"`
	MaxDuration string `json:"maxDuration,omitempty"`
}

// NamespaceMetadata is syncPolicy.managedNamespaceMetadata.
type NamespaceMetadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Automated is automated sync. A nil Enabled means on.
type Automated struct {
	Enabled  *bool `json:"enabled,omitempty"`
	Prune    bool  `json:"prune,omitempty"`
	SelfHeal bool  `json:"selfHeal,omitempty"`
}

// IgnoreDifference is one ignoreDifferences entry.
type IgnoreDifference struct {
	Group                 string   `json:"group,omitempty"`
	Kind                  string   `json:"kind"`
	Name                  string   `json:"name,omitempty"`
	Namespace             string   `json:"namespace,omitempty"`
	JSONPointers          []string `json:"jsonPointers,omitempty"`
	JQPathExpressions     []string `json:"jqPathExpressions,omitempty"`
	ManagedFieldsManagers []string `json:"managedFieldsManagers,omitempty"`
}

// AppProject is an argoproj.io/v1alpha1 AppProject.
type AppProject struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   Meta        `json:"metadata"`
	Spec       ProjectSpec `json:"spec"`
}

// ProjectSpec is the part of an AppProject's spec platc sets.
type ProjectSpec struct {
	// Description must read as itself as a plain YAML scalar (no ": " or
	// " #"): the argocd-apps chart prints it unquoted (chart_test.go).
	Description              string        `json:"description,omitempty"`
	SourceRepos              []string      `json:"sourceRepos"`
	Destinations             []Destination `json:"destinations"`
	ClusterResourceWhitelist []GroupKind   `json:"clusterResourceWhitelist,omitempty"`
}

// GroupKind names a kind of resource; "*" matches any.
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

const apiVersion = "argoproj.io/v1alpha1"

// TreePath is the path in the platform repository of dir, a directory of
// the generated tree: platform.git.path/<env>/dir.
func TreePath(p *ir.Program, dir string) string {
	return path.Join(p.Platform.Git.Path, p.Env.Name, dir)
}

// EnabledRecipe reports whether the platform's Argo CD has
// spec.syncPolicy.automated.enabled (v3.1.0 and later). Only a declared
// version counts: without one platc cannot know the field exists, and an
// API server whose CRD lacks it would silently prune enabled: false and
// leave automated sync on at creation, breaking INV-2.
func EnabledRecipe(p *ir.Program) bool {
	major, minor, ok := majorMinor(p.Platform.ArgoCD.Version)
	return ok && (major > 3 || major == 3 && minor >= 1)
}

// majorMinor parses "v3.5.1" or "3.5.1".
func majorMinor(v string) (int, int, bool) {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}

// IgnorePointer is the root app's ignoreDifferences pointer for the
// child Applications' automated sync.
func IgnorePointer(p *ir.Program) string {
	if EnabledRecipe(p) {
		return EnabledPointer
	}
	return AutomatedPointer
}

func labels(p *ir.Program) map[string]string {
	return map[string]string{
		LabelManagedBy: ManagedBy,
		LabelPartOf:    p.Platform.Name,
	}
}

// AppSelector is the label selector of the Applications platc generated
// for p's apps in p's environment.
func AppSelector(p *ir.Program) string {
	return LabelManagedBy + "=" + ManagedBy + "," + LabelPartOf + "=" + p.Platform.Name + "," +
		LabelEnvironment + "=" + p.Env.Name + "," + LabelApp
}

// record is the annotations of a's Application: its dependencies'
// Application names and its teardown settings, as deployed.
func record(a *ir.App) map[string]string {
	deps := make([]string, 0, len(a.Deps))
	for _, d := range a.Deps {
		deps = append(deps, d.App.Application)
	}
	slices.Sort(deps)
	return map[string]string{
		AnnotationDependsOn: strings.Join(slices.Compact(deps), ","),
		AnnotationVolumes:   string(a.Teardown.Volumes),
		AnnotationTimeout:   ir.FormatDuration(a.Teardown.Timeout),
	}
}

// App is the Application of a, or nil when a adopts an Application that
// exists already (it has no source).
//
// It is created without automated sync (INV-2): the deploy workflow syncs
// it in dependency order and only then switches automated sync on for
// apps that ask for it. With the enabled recipe those apps carry their
// automated block with enabled: false, so prune and selfHeal come from Git
// and the workflow flips nothing but enabled; otherwise they carry no
// automated block and the workflow adds it.
func App(p *ir.Program, a *ir.App) *Application {
	if a.Source == nil {
		return nil
	}
	srcs := make([]Source, 0, len(a.Sources))
	for _, src := range a.Sources {
		srcs = append(srcs, source(src))
	}
	sp := &SyncPolicy{SyncOptions: slices.Clone(a.Sync.Options)}
	// The app declares its namespace in HCL and nothing else creates it;
	// without CreateNamespace the first sync of most charts fails.
	if !slices.ContainsFunc(sp.SyncOptions, func(o string) bool { return strings.HasPrefix(o, "CreateNamespace=") }) {
		sp.SyncOptions = append(sp.SyncOptions, "CreateNamespace=true")
	}
	if a.Sync.Automated && EnabledRecipe(p) {
		off := false
		sp.Automated = &Automated{Enabled: &off, Prune: a.Sync.Prune, SelfHeal: a.Sync.SelfHeal}
	}
	if r := a.Sync.Retry; r != nil {
		sp.Retry = &RetryStrategy{Limit: int64(r.Limit)}
		if r.HasBackoff {
			b := &Backoff{}
			if r.Backoff > 0 {
				b.Duration = ir.FormatDuration(r.Backoff)
			}
			if r.Factor > 0 {
				f := int64(r.Factor)
				b.Factor = &f
			}
			if r.MaxBackoff > 0 {
				b.MaxDuration = ir.FormatDuration(r.MaxBackoff)
			}
			sp.Retry.Backoff = b
		}
	}
	if ns := a.Sync.Namespace; ns != nil {
		sp.ManagedNamespaceMetadata = &NamespaceMetadata{Labels: ns.Labels, Annotations: ns.Annotations}
	}
	// The app's own labels and annotations first: platc's are written
	// over them (the compiler refuses the keys platc writes anyway).
	l := maps.Clone(a.Labels)
	if l == nil {
		l = map[string]string{}
	}
	maps.Copy(l, labels(p))
	l[LabelEnvironment] = p.Env.Name
	l[LabelApp] = a.Name
	if a.Stack != nil {
		l[LabelStack] = a.Stack.Name
	}
	ann := maps.Clone(a.Annotations)
	if ann == nil {
		ann = map[string]string{}
	}
	maps.Copy(ann, record(a))
	meta := Meta{Name: a.Application, Namespace: p.Platform.ArgoCD.Namespace, Labels: l, Annotations: ann}
	switch a.Finalizer {
	case ir.FinalizerForeground:
		meta.Finalizers = []string{ResourcesFinalizer}
	case ir.FinalizerBackground:
		meta.Finalizers = []string{ResourcesFinalizer + "/background"}
	}
	spec := ApplicationSpec{
		Project:              a.Project,
		Destination:          Destination{Server: a.Destination.Server, Name: a.Destination.Name, Namespace: a.Namespace},
		SyncPolicy:           sp,
		RevisionHistoryLimit: a.RevisionHistoryLimit,
	}
	if len(srcs) == 1 {
		spec.Source = &srcs[0]
	} else {
		spec.Sources = srcs
	}
	for _, in := range a.Info {
		spec.Info = append(spec.Info, Info{Name: in.Name, Value: in.Value})
	}
	for _, d := range a.IgnoreDifferences {
		spec.IgnoreDifferences = append(spec.IgnoreDifferences, IgnoreDifference{
			Group: d.Group, Kind: d.Kind, Name: d.Name, Namespace: d.Namespace,
			JSONPointers: d.JSONPointers, JQPathExpressions: d.JQPathExpressions,
			ManagedFieldsManagers: d.ManagedFieldsManagers,
		})
	}
	return &Application{APIVersion: apiVersion, Kind: "Application", Metadata: meta, Spec: spec}
}

// ResourcesFinalizer is Argo CD's finalizer that deletes an
// Application's resources with it (foreground; "/background" appended
// for background deletion).
const ResourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// source is the Application source of src.
func source(src *ir.Source) Source {
	s := Source{RepoURL: src.RepoURL, Ref: src.Ref}
	if src.IsChart() {
		s.Chart, s.TargetRevision = src.Chart, src.Version
	} else {
		s.Path, s.TargetRevision = src.Path, src.TargetRevision
	}
	if h := src.Helm; h != nil {
		hs := &HelmSource{
			ReleaseName: h.ReleaseName, ValueFiles: h.ValueFiles, ValuesObject: h.Values,
			SkipCRDs: h.SkipCRDs, SkipTests: h.SkipTests, IgnoreMissingValueFiles: h.IgnoreMissingValueFiles,
			PassCredentials: h.PassCredentials, APIVersions: h.APIVersions, KubeVersion: h.KubeVersion,
		}
		for _, p := range h.Parameters {
			hs.Parameters = append(hs.Parameters, HelmParameter{Name: p.Name, Value: p.Value, ForceString: p.ForceString})
		}
		for _, p := range h.FileParameters {
			hs.FileParameters = append(hs.FileParameters, HelmFileParameter{Name: p.Name, Path: p.Path})
		}
		if len(hs.ValuesObject) == 0 {
			hs.ValuesObject = nil
		}
		if len(hs.ValueFiles) == 0 {
			hs.ValueFiles = nil
		}
		if !reflect.ValueOf(*hs).IsZero() {
			s.Helm = hs
		}
	}
	if k := src.Kustomize; k != nil {
		ks := &KustomizeSource{
			NamePrefix: k.NamePrefix, NameSuffix: k.NameSuffix, Images: k.Images,
			CommonLabels: k.CommonLabels, CommonAnnotations: k.CommonAnnotations,
			Namespace: k.Namespace, Components: k.Components,
		}
		for _, p := range k.Patches {
			kp := KustomizePatch{Path: p.Path, Patch: p.Patch}
			if t := p.Target; t != nil {
				kp.Target = &KustomizeTarget{Group: t.Group, Version: t.Version, Kind: t.Kind, Name: t.Name,
					Namespace: t.Namespace, LabelSelector: t.LabelSelector, AnnotationSelector: t.AnnotationSelector}
			}
			ks.Patches = append(ks.Patches, kp)
		}
		s.Kustomize = ks
	}
	if d := src.Directory; d != nil {
		ds := &DirectorySource{Recurse: d.Recurse, Include: d.Include, Exclude: d.Exclude}
		if j := d.Jsonnet; j != nil {
			ds.Jsonnet = &JsonnetSource{ExtVars: jsonnetVars(j.ExtVars), TLAs: jsonnetVars(j.TLAs), Libs: j.Libs}
		}
		s.Directory = ds
	}
	if pl := src.Plugin; pl != nil {
		ps := &PluginSource{Name: pl.Name}
		for _, v := range pl.Env {
			ps.Env = append(ps.Env, EnvEntry{Name: v.Name, Value: fmt.Sprint(v.Value)})
		}
		for _, pp := range pl.Parameters {
			ps.Parameters = append(ps.Parameters, PluginParameter{Name: pp.Name, String: pp.String, Array: pp.Array, Map: pp.Map})
		}
		s.Plugin = ps
	}
	return s
}

func jsonnetVars(vs []ir.JsonnetVar) []JsonnetVar {
	var out []JsonnetVar
	for _, v := range vs {
		out = append(out, JsonnetVar{Name: v.Name, Value: v.Value, Code: v.Code})
	}
	return out
}

// Root is the root app-of-apps: it points at generated/<env>/argocd/apps
// in the platform repository and only creates Application objects: the
// apps', or on a platform too large for one root, the group roots
// (Groups), which hold the apps' and follow the same policy.
//
// It syncs automatically, but without selfHeal and prune: a new commit
// creates the Applications of new apps, while teardown can delete child
// Applications without the root resurrecting them, and an app removed
// from the HCL leaves its Application for an ordered teardown rather than
// vanishing. The ignoreDifferences recipe (docs/workflows.md) keeps the root
// from reverting the automated sync the deploy workflow switches on, and
// from flapping on the refresh annotation and operation the workflow
// writes to children.
//
// Validate=false skips kubectl's client-side check before each apply,
// which fetches and parses the OpenAPI document of argoproj.io/v1alpha1
// (every Argo CRD's schema) once per object: at 10,000 apps the root's
// first sync spent two thirds of the application controller's CPU there
// and created no Application in ten minutes. What it would catch, a
// mistyped field, cannot occur in the root's objects: platc writes them
// from typed structs, tested against Argo CD's CRD schema. The apps'
// own Applications keep the check; their manifests are people's.
func Root(p *ir.Program) *Application { return parent(p, RootApp, AppsDir) }

// parent is an app-of-apps of dir: the root, or a group root.
func parent(p *ir.Program, name, dir string) *Application {
	a := ownApplication(p, name, dir, p.Platform.ArgoCD.Namespace)
	a.Spec.SyncPolicy = &SyncPolicy{
		Automated:   &Automated{},
		SyncOptions: []string{"RespectIgnoreDifferences=true", "Validate=false"},
	}
	a.Spec.IgnoreDifferences = []IgnoreDifference{{
		Group: "argoproj.io",
		Kind:  "Application",
		JSONPointers: []string{
			IgnorePointer(p),
			"/metadata/annotations/argocd.argoproj.io~1refresh",
			"/operation",
		},
	}}
	return a
}

// A Group is one group root: an app-of-apps, itself one of the root's
// Applications, of the Applications of some apps in its own directory.
type Group struct {
	Name string    // the group root's Application name
	Dir  string    // its directory of the generated tree
	Apps []*ir.App // whose Applications it holds, in p.Apps's order
}

// GroupRootPrefix begins every group root's name; the compiler refuses
// it for apps (compiler/apps.go).
const GroupRootPrefix = RootApp + "-"

// Groups splits p's Applications among group roots, or is nil when they
// fit in the root itself (argocd.applications_per_root). Argo CD records
// every child twice on its parent's status, and kube-apiserver refuses a
// parent over its 2 MiB write limit: one root could not record the sync
// of 10,000 Applications (ir.DefaultAppsPerRoot).
//
// There is one group per stack, platc-root-<stack>, so that an app
// added or removed moves no other app's Application between roots; a
// stack over the limit continues in platc-root-<stack>.2 and on (stack
// names have no dot), and apps outside any stack go in platc-root-0
// (stack names start with a letter).
func Groups(p *ir.Program) []Group {
	limit := p.Platform.ArgoCD.AppsPerRoot
	byStack := map[*ir.Stack][]*ir.App{}
	n := 0
	for _, a := range p.Apps {
		if a.Source != nil { // App's test: adopted apps have no Application here
			byStack[a.Stack] = append(byStack[a.Stack], a)
			n++
		}
	}
	if limit < 1 || n <= limit {
		return nil
	}
	var out []Group
	add := func(name string, apps []*ir.App) {
		for k := 0; len(apps) > 0; k++ {
			gn := GroupRootPrefix + name
			if k > 0 {
				gn += "." + strconv.Itoa(k+1)
			}
			m := min(limit, len(apps))
			out = append(out, Group{Name: gn, Dir: path.Join(AppsDir, gn), Apps: apps[:m:m]})
			apps = apps[m:]
		}
	}
	add("0", byStack[nil])
	for _, s := range p.Stacks {
		add(s.Name, byStack[s])
	}
	return out
}

// GroupRootNames are the names of p's group roots, in Groups's order.
func GroupRootNames(p *ir.Program) []string {
	var out []string
	for _, g := range Groups(p) {
		out = append(out, g.Name)
	}
	return out
}

// GroupRoot is g's Application: an app-of-apps like the root.
func GroupRoot(p *ir.Program, g Group) *Application { return parent(p, g.Name, g.Dir) }

// clusterResources are the cluster-scoped kinds platc deploys through
// Argo CD: the ClusterWorkflowTemplate, and the snapshot ClusterRole and
// its binding when teardown needs them.
func clusterResources(p *ir.Program) []GroupKind {
	out := []GroupKind{{Group: "argoproj.io", Kind: "ClusterWorkflowTemplate"}}
	if SnapshotRBAC(p) {
		out = append(out,
			GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
			GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"})
	}
	return out
}

// orchestration is an Application of platc's own objects: synced
// automatically, pruned and self-healed, because these objects have no
// ordering constraints and must always match Git.
func orchestration(p *ir.Program, name, dir, namespace string) *Application {
	a := ownApplication(p, name, dir, namespace)
	a.Spec.SyncPolicy = &SyncPolicy{Automated: &Automated{Prune: true, SelfHeal: true}}
	return a
}

// ownApplication is an Application, in platc's project, of one directory
// of the generated tree at the platform repository's revision.
func ownApplication(p *ir.Program, name, dir, namespace string) *Application {
	g := p.Platform.Git
	return &Application{
		APIVersion: apiVersion,
		Kind:       "Application",
		Metadata:   Meta{Name: name, Namespace: p.Platform.ArgoCD.Namespace, Labels: labels(p)},
		Spec: ApplicationSpec{
			Project:     Project,
			Source:      &Source{RepoURL: g.RepoURL, Path: TreePath(p, dir), TargetRevision: g.Revision},
			Destination: Destination{Server: InClusterServer, Namespace: namespace},
		},
	}
}

// Workflows is the Application that brings generated/<env>/workflows/
// (the deploy, validate and teardown templates and their RBAC) to the
// cluster. It applies server-side: a client-side apply keeps a copy of
// each object in the last-applied-configuration annotation, which may not
// exceed 256 KiB, and the deploy template of a platform of about 800 apps
// is larger than that.
func Workflows(p *ir.Program) *Application {
	a := orchestration(p, WorkflowsApp, WorkflowsDir, p.Platform.Workflows.Namespace)
	a.Spec.SyncPolicy.SyncOptions = []string{"ServerSideApply=true"}
	return a
}

// SnapshotRBAC reports whether generated/<env>/workflows/ holds the
// ClusterRole and ClusterRoleBinding that let teardown create
// VolumeSnapshots: when some app's teardown policy is snapshot. The
// workflows emitter writes them and Projects lets platc's project sync
// them, both from this one test.
func SnapshotRBAC(p *ir.Program) bool {
	return slices.ContainsFunc(p.Apps, func(a *ir.App) bool { return a.Teardown.Volumes == ir.VolumesSnapshot })
}

// Events is the Application that brings generated/<env>/events/ to the
// cluster, or nil when the platform has no events block.
func Events(p *ir.Program) *Application {
	if p.Events == nil {
		return nil
	}
	return orchestration(p, EventsApp, EventsDir, p.Events.Namespace)
}

// Alerts is the Application that brings generated/<env>/alerts/ (the
// PrometheusRule) to the cluster, or nil when the platform has no alerts
// block. Its CRD comes with the Prometheus Operator, which the platform
// itself may install: until it does, the sync fails and is retried, for
// ever, backing off to every 30 minutes. Nothing waits for this
// Application, so a missing CRD holds back no deploy.
func Alerts(p *ir.Program) *Application {
	if p.Alerts == nil {
		return nil
	}
	a := orchestration(p, AlertsApp, AlertsDir, p.Alerts.Namespace)
	factor := int64(2)
	a.Spec.SyncPolicy.Retry = &RetryStrategy{Limit: -1, Backoff: &Backoff{Duration: "1m", Factor: &factor, MaxDuration: "30m"}}
	return a
}

// Projects are the AppProjects the bootstrap creates before the root
// Application: platc's own project, then every project a generated
// Application uses, sorted by name. Argo CD's built-in "default" project
// exists already and is left alone.
func Projects(p *ir.Program) []AppProject {
	g := p.Platform.Git
	dests := []Destination{
		{Server: InClusterServer, Namespace: p.Platform.ArgoCD.Namespace},
		{Server: InClusterServer, Namespace: p.Platform.Workflows.Namespace},
	}
	if p.Events != nil {
		dests = append(dests, Destination{Server: InClusterServer, Namespace: p.Events.Namespace})
	}
	if p.Alerts != nil {
		dests = append(dests, Destination{Server: InClusterServer, Namespace: p.Alerts.Namespace})
	}
	dests = slices.CompactFunc(sortDests(dests), func(a, b Destination) bool { return a == b })
	out := []AppProject{{
		APIVersion: apiVersion,
		Kind:       "AppProject",
		Metadata:   Meta{Name: Project, Namespace: p.Platform.ArgoCD.Namespace, Labels: labels(p)},
		Spec: ProjectSpec{
			Description:              "platc's orchestration (the root app and the workflow and event objects)",
			SourceRepos:              []string{g.RepoURL},
			Destinations:             dests,
			ClusterResourceWhitelist: clusterResources(p),
		},
	}}
	var names []string
	repos := map[string][]string{}
	clusters := map[string][]*ir.Cluster{}
	for _, a := range p.Apps {
		if a.Source == nil || a.Project == "default" {
			continue
		}
		if _, seen := repos[a.Project]; !seen {
			names = append(names, a.Project)
		}
		if cl := a.Destination.Cluster; cl != nil && !slices.Contains(clusters[a.Project], cl) {
			clusters[a.Project] = append(clusters[a.Project], cl)
		}
		for _, src := range a.Sources {
			if !slices.Contains(repos[a.Project], src.RepoURL) {
				repos[a.Project] = append(repos[a.Project], src.RepoURL)
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		rs := repos[name]
		slices.Sort(rs)
		// Platform apps are cluster infrastructure: operators bring CRDs
		// and cluster roles, and charts write outside their own
		// namespace (leader-election roles in kube-system), so any
		// namespace and any kind are allowed, but only in the cluster
		// Argo CD runs in and the declared clusters the project's apps
		// deploy to.
		dests := []Destination{{Server: InClusterServer, Namespace: "*"}}
		cls := clusters[name]
		slices.SortFunc(cls, func(a, b *ir.Cluster) int { return strings.Compare(a.Name, b.Name) })
		for _, cl := range cls {
			dests = append(dests, Destination{Server: cl.Server, Name: cl.Name, Namespace: "*"})
		}
		out = append(out, AppProject{
			APIVersion: apiVersion,
			Kind:       "AppProject",
			Metadata:   Meta{Name: name, Namespace: p.Platform.ArgoCD.Namespace, Labels: labels(p)},
			Spec: ProjectSpec{
				Description: "Apps of platform " + p.Platform.Name + ", generated by platc",
				// Only the repositories the HCL names: an Application that
				// points anywhere else is refused by Argo CD.
				SourceRepos:              rs,
				Destinations:             dests,
				ClusterResourceWhitelist: []GroupKind{{Group: "*", Kind: "*"}},
			},
		})
	}
	return out
}

func sortDests(d []Destination) []Destination {
	slices.SortFunc(d, func(a, b Destination) int { return strings.Compare(a.Namespace, b.Namespace) })
	return d
}

// JetStream is the NATS JetStream the EventBus runs. The events emitter
// pins Version in the EventBus, and the bootstrap gives the argo-events
// controller exactly this entry as its list of supported versions, so the
// pin holds whichever argo-events chart version is installed. These are
// the images argo-events chart 2.4.9 lists for 2.10.10.
var JetStream = struct {
	Version, NATSImage, MetricsExporterImage, ConfigReloaderImage, StartCommand string
}{
	Version:              "2.10.10",
	NATSImage:            "nats:2.10.10",
	MetricsExporterImage: "natsio/prometheus-nats-exporter:0.14.0",
	ConfigReloaderImage:  "natsio/nats-server-config-reloader:0.14.0",
	StartCommand:         "/nats-server",
}
