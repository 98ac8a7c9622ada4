package argo

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/internal/gitops"
	"github.com/platc/platc/internal/satmath"
	"github.com/platc/platc/plan"
)

// deadlineMargin covers pod scheduling and controller latency on top of
// the derived worst case.
const deadlineMargin = 10 * time.Minute

// spec holds what deploy, teardown and validate share. Mutating workflows
// take one mutex per platform, so two deploys, or a deploy and a
// teardown, never overlap.
func (b *builder) spec(action string, deadline time.Duration, exclusive bool) wfv1.WorkflowSpec {
	wf := b.p.Platform.Workflows
	par := int64(wf.Parallelism)
	if wf.Timeout > 0 {
		deadline = wf.Timeout
	}
	secs := wholeMinutes(deadline)
	s := wfv1.WorkflowSpec{
		Entrypoint:            tmplMain,
		ServiceAccountName:    wf.ServiceAccount,
		Parallelism:           &par,
		ActiveDeadlineSeconds: &secs,
		// Keep failed pods for their logs; successful ones go.
		PodGC:            &wfv1.PodGC{Strategy: wfv1.PodGCOnPodSuccess},
		WorkflowMetadata: &wfv1.WorkflowMetadata{Labels: b.labels(action)},
	}
	if exclusive {
		s.Synchronization = &wfv1.Synchronization{Mutexes: []*wfv1.Mutex{{Name: b.mutex()}}}
	}
	return s
}

// mutex is the lock of every workflow that changes the platform.
func (b *builder) mutex() string { return "platc-" + b.p.Platform.Name }

func (b *builder) objectMeta(name, action string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: b.p.Platform.Workflows.Namespace, Labels: b.labels(action)}
}

var templateTypeMeta = metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "WorkflowTemplate"}

// call makes a task or step run a ClusterTemplate template: by reference,
// or by name when the templates are inlined (scoped workflows).
func (b *builder) call(template string) (string, *wfv1.TemplateRef) {
	if b.inline {
		return template, nil
	}
	return "", ref(template)
}

func (b *builder) syncTask(a *ir.App) wfv1.DAGTask {
	t := wfv1.DAGTask{Arguments: args(syncInputs, syncValues(a), b.defs.sync), When: b.appWhen(a)}
	t.Template, t.TemplateRef = b.call(tmplSyncAndWait)
	return t
}

// waitTask waits for one resource node of the app that manages it.
func (b *builder) waitTask(r *ir.Resource) wfv1.DAGTask {
	t := wfv1.DAGTask{Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{
		value("application", r.App.Application), value("group", r.Group), value("kind", r.Kind),
		value("name", r.ResourceName), value("namespace", r.Namespace), value("wait", string(r.Wait)),
		value("timeout", seconds(r.Timeout)), value("deadline", seconds(r.Timeout+callHeadroom)),
	}}, When: b.resourceWhen(r)}
	t.Template, t.TemplateRef = b.call(tmplWaitResource)
	return t
}

func (b *builder) deleteTask(a *ir.App) wfv1.DAGTask {
	t := wfv1.DAGTask{Arguments: args(deleteInputs, deleteValues(a), b.defs.del)}
	t.Template, t.TemplateRef = b.call(tmplDeleteAndWait)
	return t
}

func (b *builder) checkTask(a *ir.App) wfv1.DAGTask {
	t := wfv1.DAGTask{Arguments: args(checkInputs, map[string]string{"application": a.Application}, nil)}
	t.Template, t.TemplateRef = b.call(tmplCheckHealthy)
	return t
}

func (b *builder) absentTask(a *ir.App) wfv1.DAGTask {
	t := wfv1.DAGTask{Arguments: args(absentInputs, map[string]string{"application": a.Application, "project": a.Project}, b.defs.sync)}
	t.Template, t.TemplateRef = b.call(tmplCheckAbsent)
	return t
}

func bool01(v bool) string {
	if v {
		return "true"
	}
	return "false"
}

// steps chains templates one after another.
func steps(names ...string) []wfv1.ParallelSteps {
	out := make([]wfv1.ParallelSteps, 0, len(names))
	for _, n := range names {
		out = append(out, wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{{Name: n, Template: n}}})
	}
	return out
}

// bound is the derived activeDeadlineSeconds of a DAG whose tasks take at
// most worst each, with the workflow's parallelism (plan's worst case).
func (b *builder) bound(g *plan.Graph, gr plan.Grouping, worst func(*ir.App) time.Duration) time.Duration {
	return gr.WorstCase(g, b.p.Platform.Workflows.Parallelism, worst)
}

// deadline is the derived activeDeadlineSeconds of a deploy or teardown
// DAG: one chain whose apps take budget (timeouts and retries), the rest
// at their expected durations (plan's Deadline).
func (b *builder) deadline(g *plan.Graph, gr plan.Grouping, budget func(*ir.App) time.Duration) time.Duration {
	return gr.Deadline(g, b.p.Platform.Workflows.Parallelism, budget, func(a *ir.App) time.Duration { return a.ExpectedDuration })
}

// deploy is deploy.yaml: main runs the apps DAG. Each app's step switches
// on its automated sync as it converges, so there is no steady-state
// phase after the DAG. Its parameters, converged (and, when split,
// converged_children), are empty unless the executor skips converged
// apps (resume.go).
func (b *builder) deploy(lim plan.Limits) (*wfv1.WorkflowTemplate, error) {
	g := plan.DeployGraph(b.p.Apps)
	gr, err := plan.Group(g, plan.DeployLimits(b.p.Apps, lim))
	if err != nil {
		return nil, err
	}
	spec, err := b.deploySpec(g, gr, nil)
	if err != nil {
		return nil, err
	}
	return &wfv1.WorkflowTemplate{TypeMeta: templateTypeMeta, ObjectMeta: b.objectMeta(DeployTemplate, "deploy"), Spec: spec}, nil
}

// deploySpec is the spec of a deploy of g; pre, when set, is a template
// that must succeed first (a scoped deploy's dependency checks), followed
// by its own templates.
func (b *builder) deploySpec(g *plan.Graph, gr plan.Grouping, pre []wfv1.Template) (wfv1.WorkflowSpec, error) {
	deadline := satmath.Add(b.deadline(g, gr, syncBudget), deadlineMargin)
	main := wfv1.Template{Name: tmplMain}
	if pre != nil {
		main.Steps = append(main.Steps, steps(pre[0].Name)...)
		deadline = satmath.Add(deadline, shortDeadlineDuration*2)
	}
	main.Steps = append(main.Steps, steps(tmplApps)...)
	spec := b.spec("deploy", deadline, true)
	// What a resume skips (resume.go).
	spec.Arguments.Parameters = convergedParams(b.split != nil)
	spec.Templates = append([]wfv1.Template{main}, pre...)
	apps, err := b.appsDAG(tmplApps, g, gr, b.syncTask, b.waitTask, spec)
	spec.Templates = append(spec.Templates, apps...)
	return spec, err
}

// shortDeadlineDuration is a check step's deadline as a duration.
const shortDeadlineDuration = callHeadroom

// fixedRetryPolicy mirrors fixedRetry for deadline arithmetic.
var fixedRetryPolicy = ir.Retry{Limit: 2, Backoff: 10 * time.Second, Factor: 2, MaxBackoff: time.Minute}

// teardown is teardown.yaml: confirm, stop app-of-apps auto-sync, take
// every snapshot the volume policy asks for, delete in exactly the
// reverse order, report orphans. Parameters: confirm (must
// equal the platform's name) and volumes (per-app, retain, delete or
// snapshot).
func (b *builder) teardown(lim plan.Limits) (*wfv1.WorkflowTemplate, error) {
	g := plan.DeployGraph(b.p.Apps).Reversed()
	gr, err := plan.Group(g, lim)
	if err != nil {
		return nil, err
	}
	spec, err := b.teardownSpec(g, gr, nil, true)
	if err != nil {
		return nil, err
	}
	return &wfv1.WorkflowTemplate{TypeMeta: templateTypeMeta, ObjectMeta: b.objectMeta(TeardownTemplate, "teardown"), Spec: spec}, nil
}

func (b *builder) teardownSpec(g *plan.Graph, gr plan.Grouping, pre []wfv1.Template, report bool) (wfv1.WorkflowSpec, error) {
	apps, projects, err := b.appLists(g.Apps)
	if err != nil {
		return wfv1.WorkflowSpec{}, err
	}
	budget := func(a *ir.App) time.Duration { return teardownBudget(a) }
	deadline := satmath.Add(satmath.Add(b.deadline(g, gr, budget), deadlineMargin),
		worstCase(shortDeadlineDuration, ir.Retry{})+worstCase(longDeadline*time.Second, fixedRetryPolicy))
	main := wfv1.Template{Name: tmplMain}
	confirm := wfv1.WorkflowStep{Name: "confirm", Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{value("confirm", "{{workflow.parameters."+ParamConfirm+"}}")}}}
	confirm.Template, confirm.TemplateRef = b.call(tmplConfirm)
	main.Steps = append(main.Steps, wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{confirm}})
	if pre != nil {
		main.Steps = append(main.Steps, steps(pre[0].Name)...)
		deadline = satmath.Add(deadline, 2*shortDeadlineDuration)
	}
	// A list of Applications longer than a pod's environment variable may
	// hold is passed in chunks: one step per chunk finds (or, for the
	// report, lists), one step over their outputs decides.
	chunks := appChunks(g.Apps)
	chunked := len(chunks) > 1
	suspendArgs := []wfv1.Parameter{value("applications", apps), value("projects", projects)}
	if chunked {
		find, outs := b.chunkSteps(tmplFindParents, chunks, projects, "candidates", "managing")
		main.Steps = append(main.Steps, find)
		suspendArgs = []wfv1.Parameter{value("applications", "[]"), value("projects", "[]"), value("found", outs[0]), value("managing", outs[1])}
		deadline = satmath.Add(deadline, worstCase(longDeadline*time.Second, fixedRetryPolicy))
	}
	suspend := wfv1.WorkflowStep{Name: "suspend-parents", Arguments: wfv1.Arguments{Parameters: suspendArgs}}
	suspend.Template, suspend.TemplateRef = b.call(tmplSuspend)
	main.Steps = append(main.Steps, wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{suspend}})
	// A split teardown takes its snapshots in child workflows of at most
	// snapshotChunk apps each, all before the first deletion: one list of
	// every app would make the parent too large, and a step's parameter
	// longer than a pod's environment variable may be.
	var snapChildren []wfv1.WorkflowStep
	if b.split != nil {
		sorted := slices.SortedFunc(slices.Values(g.Apps), func(x, y *ir.App) int { return strings.Compare(x.Application, y.Application) })
		for chunk := range slices.Chunk(sorted, snapshotChunk) {
			snap, err := b.snapshotStep(chunk)
			if err != nil {
				return wfv1.WorkflowSpec{}, err
			}
			if snap != nil {
				snapChildren = append(snapChildren, *snap)
			}
		}
		if len(snapChildren) > 0 {
			main.Steps = append(main.Steps, b.split.snapshotChildren(b, snapChildren))
			deadline = satmath.Add(deadline, b.snapshotBudget(g.Apps))
		}
	} else if snaps, err := b.snapshotSteps(g.Apps); err != nil {
		return wfv1.WorkflowSpec{}, err
	} else if len(snaps) > 0 {
		// The chunks run at once, so the budget is one step's.
		main.Steps = append(main.Steps, wfv1.ParallelSteps{Steps: snaps})
		deadline = satmath.Add(deadline, b.snapshotBudget(g.Apps))
	}
	main.Steps = append(main.Steps, steps(tmplApps)...)
	if report {
		ignore := value("ignore", "{{steps.suspend-parents.outputs.parameters.parents}}")
		reportArgs := []wfv1.Parameter{value("applications", apps), value("projects", projects), ignore}
		if chunked {
			rows, outs := b.chunkSteps(tmplOrphanRows, chunks, projects, "rows")
			main.Steps = append(main.Steps, rows)
			reportArgs = []wfv1.Parameter{value("applications", "[]"), value("projects", "[]"), ignore, value("rows", outs[0])}
			deadline = satmath.Add(deadline, longDeadline*time.Second)
		}
		r := wfv1.WorkflowStep{Name: "orphan-report", Arguments: wfv1.Arguments{Parameters: reportArgs}}
		r.Template, r.TemplateRef = b.call(tmplOrphans)
		main.Steps = append(main.Steps, wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{r}})
		deadline = satmath.Add(deadline, longDeadline*time.Second)
	}
	spec := b.spec("teardown", deadline, true)
	var enum []wfv1.AnyString
	for _, v := range VolumeOverrides(b.p) {
		enum = append(enum, wfv1.AnyString(v))
	}
	spec.Arguments = wfv1.Arguments{Parameters: []wfv1.Parameter{
		{Name: ParamConfirm, Description: wfv1.AnyStringPtr("the platform's name, to confirm the teardown")},
		{Name: ParamVolumes, Value: wfv1.AnyStringPtr(VolumesPerApp), Enum: enum,
			Description: wfv1.AnyStringPtr(volumesDescription(b.p))},
	}}
	spec.Templates = append([]wfv1.Template{main}, pre...)
	if len(snapChildren) > 0 {
		b.split.snapshotSpecs(b, snapChildren, spec)
	}
	dagTemplates, err := b.appsDAG(tmplApps, g, gr, b.deleteTask, nil, spec)
	spec.Templates = append(spec.Templates, dagTemplates...)
	return spec, err
}

// snapshotting reports whether a teardown of apps may take snapshots:
// when an app's own policy is snapshot, or the run may ask every app for
// it (VolumeOverrides offers snapshot only when the RBAC is there).
func (b *builder) snapshotting(apps []*ir.App) bool {
	return gitops.SnapshotRBAC(b.p) || slices.ContainsFunc(apps, func(a *ir.App) bool { return a.Teardown.Volumes == ir.VolumesSnapshot })
}

// snapshotEntry is one app of a snapshot step's list, as find-claims
// reads it.
type snapshotEntry struct {
	Application string `json:"application"`
	Project     string `json:"project"`
	Volumes     string `json:"volumes"`
	Timeout     string `json:"timeout"`
	Class       string `json:"class,omitempty"` // the VolumeSnapshotClass; none: the default
}

// snapshotEntries are apps' entries as JSON, sorted by Application.
func snapshotEntries(apps []*ir.App) [][]byte {
	list := make([]snapshotEntry, 0, len(apps))
	for _, a := range apps {
		list = append(list, snapshotEntry{a.Application, a.Project, string(a.Teardown.Volumes), seconds(a.Teardown.Timeout), a.Teardown.SnapshotClass})
	}
	slices.SortFunc(list, func(x, y snapshotEntry) int { return strings.Compare(x.Application, y.Application) })
	out := make([][]byte, len(list))
	for i, e := range list {
		out[i], _ = json.Marshal(e) // strings only: always marshals
	}
	return out
}

// snapshotStep is the step, before the first deletion, that takes every
// snapshot the volume policy asks for (snapshotVolumes), or nil when no
// app of the run can ask for one. A split teardown runs one per snapshot
// child, each of at most snapshotChunk apps.
func (b *builder) snapshotStep(apps []*ir.App) (*wfv1.WorkflowStep, error) {
	if !b.snapshotting(apps) {
		return nil, nil
	}
	st := b.snapshotCall("snapshots", "["+string(bytes.Join(snapshotEntries(apps), []byte(",")))+"]")
	return &st, nil
}

// snapshotSteps are the snapshot steps of a workflow not split into
// children (a scoped teardown, an unsplit teardown template, a prune), run at
// once as one step group: one step, snapshots, when the list fits
// listChunkBytes, as appChunks keeps suspend-parents' lists; otherwise
// one per chunk of at most listChunkBytes, snapshots-01, …, each far
// within what a pod's environment variable may hold (find-claims reads
// its list from one). A failed chunk fails the group before anything is
// deleted, as the one step did.
func (b *builder) snapshotSteps(apps []*ir.App) ([]wfv1.WorkflowStep, error) {
	if !b.snapshotting(apps) {
		return nil, nil
	}
	chunks := jsonChunks(snapshotEntries(apps))
	names := []string{"snapshots"}
	if len(chunks) > 1 {
		names = groupNames("snapshots", len(chunks))
	}
	out := make([]wfv1.WorkflowStep, len(chunks))
	for i, c := range chunks {
		out[i] = b.snapshotCall(names[i], c)
	}
	return out, nil
}

func (b *builder) snapshotCall(name, list string) wfv1.WorkflowStep {
	st := wfv1.WorkflowStep{Name: name, Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{value("apps", list)}}}
	st.Template, st.TemplateRef = b.call(tmplSnapshots)
	return st
}

// snapshotBudget bounds the snapshot step: find-claims with its
// retries, then the snapshots, which run at once (within the workflow's
// parallelism) each within its app's teardown timeout. Like the DAG's
// deadline it assumes one slow snapshot, not every one slow at once.
func (b *builder) snapshotBudget(apps []*ir.App) time.Duration {
	var worst time.Duration
	for _, a := range apps {
		worst = max(worst, a.Teardown.Timeout)
	}
	return satmath.Add(worstCase(findClaimsDeadline(len(apps)), fixedRetryPolicy), worst)
}

// listChunkBytes bounds one chunk of a teardown's list of Applications
// as JSON: half of what one environment variable of a pod may hold
// (MaxParamBytes), so a chunk's step is far from the limit.
const listChunkBytes = 64 << 10

// appChunks is the sorted Application names of apps as JSON arrays of at
// most listChunkBytes each: one array when the whole list fits, which
// the suspend and report steps then take as it is.
func appChunks(apps []*ir.App) []string {
	names := make([]string, 0, len(apps))
	for _, a := range apps {
		names = append(names, a.Application)
	}
	slices.Sort(names)
	// One buffer holds every entry: a Marshal per name was two
	// allocations per app at 10,000 apps.
	size := 0
	for _, n := range names {
		size += len(n) + 2
	}
	buf := make([]byte, 0, size)
	entries := make([][]byte, len(names))
	for i, n := range names {
		start := len(buf)
		buf = appendJSONString(buf, n)
		entries[i] = buf[start:len(buf):len(buf)]
	}
	return jsonChunks(entries)
}

// appendJSONString appends s to b as json.Marshal writes it. A string of
// printable ASCII that JSON (with Marshal's HTML escaping) leaves alone,
// as every Application name is, is quoted as it is; any other goes
// through Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s) // a string always marshals
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// jsonChunks joins JSON values, in order, into JSON arrays of at most
// listChunkBytes each (one value longer than that is an array of its
// own); no values make one empty array.
func jsonChunks(entries [][]byte) []string {
	var chunks []string
	var cur []byte
	for _, e := range entries {
		if len(cur) > 0 && len(cur)+1+len(e)+1 > listChunkBytes {
			chunks = append(chunks, string(append(cur, ']')))
			cur = nil
		}
		if len(cur) == 0 {
			cur = append(cur, '[')
		} else {
			cur = append(cur, ',')
		}
		cur = append(cur, e...)
	}
	if len(cur) == 0 {
		cur = append(cur, '[')
	}
	return append(chunks, string(append(cur, ']')))
}

// chunkSteps is one step group running template once per chunk, each
// given its chunk as applications and every project of the platform (a
// chunk's step must see every Application that may name its own), and,
// per output name, the JSON array of every step's output, which the
// deciding step takes.
func (b *builder) chunkSteps(template string, chunks []string, projects string, outputs ...string) (wfv1.ParallelSteps, []string) {
	group := wfv1.ParallelSteps{}
	refs := make([][]string, len(outputs))
	for _, name := range groupNames(template, len(chunks)) {
		st := wfv1.WorkflowStep{Name: name, Arguments: wfv1.Arguments{Parameters: []wfv1.Parameter{value("applications", chunks[len(group.Steps)]), value("projects", projects)}}}
		st.Template, st.TemplateRef = b.call(template)
		group.Steps = append(group.Steps, st)
		for i, o := range outputs {
			refs[i] = append(refs[i], "{{steps."+name+".outputs.parameters."+o+"}}")
		}
	}
	outs := make([]string, len(outputs))
	for i := range refs {
		outs[i] = "[" + strings.Join(refs[i], ",") + "]"
	}
	return group, outs
}

// appLists renders the Application names and the sorted set of projects
// of apps as JSON arrays, the form the suspend and report scripts read.
func (b *builder) appLists(apps []*ir.App) (string, string, error) {
	names := make([]string, 0, len(apps))
	seen := map[string]bool{}
	var projects []string
	for _, a := range apps {
		names = append(names, a.Application)
		if !seen[a.Project] {
			seen[a.Project] = true
			projects = append(projects, a.Project)
		}
	}
	slices.Sort(names)
	slices.Sort(projects)
	n, err := json.Marshal(names)
	if err != nil {
		return "", "", err
	}
	pj, err := json.Marshal(projects)
	if err != nil {
		return "", "", err
	}
	return string(n), string(pj), nil
}

// validate is validate.yaml: check-healthy for every app at once (only
// the workflow's parallelism limits it), read-only. failFast is off, so
// one unhealthy app does not stop the others being checked. No mutex:
// it changes nothing.
func (b *builder) validate(lim plan.Limits) (*wfv1.WorkflowTemplate, error) {
	g := plan.Independent(b.p.Apps)
	gr, err := plan.Slices(g, lim)
	if err != nil {
		return nil, err
	}
	deadline := satmath.Add(b.bound(g, gr, func(*ir.App) time.Duration { return shortDeadlineDuration }), deadlineMargin)
	spec := b.spec("validate", deadline, false)
	spec.Templates, err = b.appsDAG(tmplMain, g, gr, b.checkTask, nil, spec)
	if err != nil {
		return nil, err
	}
	return &wfv1.WorkflowTemplate{TypeMeta: templateTypeMeta, ObjectMeta: b.objectMeta(ValidateTemplate, "validate"), Spec: spec}, nil
}

// VolumeOverrides are the values a teardown run may give ParamVolumes:
// per-app, retain and delete, and snapshot only when the workflows may
// create VolumeSnapshots, which they may only when an app declares the
// snapshot policy (gitops.SnapshotRBAC decides, for the RBAC too).
// Offering snapshot without that RBAC would let a run fail halfway, at
// its first snapshot.
func VolumeOverrides(p *ir.Program) []string {
	v := []string{VolumesPerApp, string(ir.VolumesRetain), string(ir.VolumesDelete)}
	if gitops.SnapshotRBAC(p) {
		v = append(v, string(ir.VolumesSnapshot))
	}
	return v
}

func volumesDescription(p *ir.Program) string {
	if gitops.SnapshotRBAC(p) {
		return "per-app uses each app's teardown.volumes; retain, delete or snapshot overrides it for every app"
	}
	return "per-app uses each app's teardown.volumes; retain or delete overrides it for every app (snapshot needs an app with teardown { volumes = \"snapshot\" })"
}

// appsDAG is the template called name that runs g's apps as gr lays them
// out: in this workflow (dag), or, when the builder splits, as child
// workflows that copy spec's settings.
func (b *builder) appsDAG(name string, g *plan.Graph, gr plan.Grouping, task func(*ir.App) wfv1.DAGTask, wait func(*ir.Resource) wfv1.DAGTask, spec wfv1.WorkflowSpec) ([]wfv1.Template, error) {
	if b.split == nil || len(g.Apps) == 0 {
		return dag(name, g, gr, task, wait, continueAfterFailure()), nil
	}
	return b.split.layout(b, name, g, gr, task, wait, spec)
}

// continueAfterFailure is the FailFast of the deploy, teardown and
// validate DAGs. RFC 2.2.1 stops only the failed app's dependents, which
// Argo omits because their depends is not met. With the default, Argo
// documents that no new task starts after a failure; v3.7's controller
// applies it when it assesses the DAG, failing the DAG once a target
// failed and nothing runs, which leaves the apps still waiting for a
// parallelism slot unscheduled. Independent branches must go on
// converging (or being removed, or checked).
func continueAfterFailure() *bool {
	f := false
	return &f
}

// Deadlines are the activeDeadlineSeconds of the deploy and teardown
// WorkflowTemplates that Build writes for a program.
type Deadlines struct {
	Deploy, Teardown time.Duration
	// Fixed is true when platform.workflows.timeout sets both instead of
	// the derivation.
	Fixed bool
}

// WorkflowDeadlines returns p's deadlines for platc plan to print. They
// are read from the templates themselves, so the two cannot disagree.
func WorkflowDeadlines(p *ir.Program) (Deadlines, error) {
	o, err := Build(p)
	if err != nil {
		return Deadlines{}, err
	}
	return Deadlines{
		Deploy:   time.Duration(*o.Deploy.Spec.ActiveDeadlineSeconds) * time.Second,
		Teardown: time.Duration(*o.Teardown.Spec.ActiveDeadlineSeconds) * time.Second,
		Fixed:    p.Platform.Workflows.Timeout > 0,
	}, nil
}
