package executor

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/english"
)

// DagInfo records the DAG customization a run was compiled with
// (RFC 7.4): the file, its digest, and what it changed.
type DagInfo struct {
	Path     string   `json:"path"`
	SHA256   string   `json:"sha256_prefix"`
	Subset   []string `json:"subset,omitempty"` // the apps chosen, when it chose some
	Added    []string `json:"dependencies_added,omitempty"`
	Removed  []string `json:"dependencies_removed,omitempty"`
	Timeouts []string `json:"timeouts,omitempty"` // the apps whose timeouts it set
	Retries  []string `json:"retries,omitempty"`  // the apps whose retries it set
}

// Report is the final structured report of RFC 7.5: summary, components,
// failures, metrics and recommendations, plus the Phase 0 validation
// report and, for teardown, the removal and orphan reports.
type Report struct {
	Action      string `json:"action"`
	Platform    string `json:"platform,omitempty"`
	Environment string `json:"environment,omitempty"`
	Scope       string `json:"scope,omitempty"`
	// Dag is the run's DAG customization (dag.yaml), when one applied.
	Dag *DagInfo `json:"dag,omitempty"`
	// Env is environment.yaml's timeouts and retries and how they applied.
	Env       *EnvInfo  `json:"environment_config,omitempty"`
	DryRun    bool      `json:"dry_run,omitempty"`
	Status    string    `json:"status"`
	ExitCode  int       `json:"exit_code"`
	Summary   string    `json:"summary"`
	StartedAt time.Time `json:"started_at"`
	Duration  float64   `json:"duration_seconds"`

	Workflow   *WorkflowInfo  `json:"workflow,omitempty"`
	Preflight  *PreflightInfo `json:"preflight,omitempty"`
	Components []Component    `json:"components"`
	Failures   []Failure      `json:"failures"`
	// Stopped is what a teardown switched off before deleting anything
	// so nothing redeploys (redeploy.go); Restored what a deploy put back.
	Stopped  []string `json:"stopped,omitempty"`
	Restored []string `json:"restored,omitempty"`
	Removed  []string `json:"removed,omitempty"`
	Retained []string `json:"retained,omitempty"`
	Orphans  []Orphan `json:"orphans,omitempty"`
	// RemovedApps are the Applications of apps no longer in the
	// platform (deploy and validate), dependents first.
	RemovedApps []RemovedApp `json:"removed_apps,omitempty"`
	// BootstrapDrift is where what the bootstrap installed (its Helm
	// releases, argocd-cm's health customizations and automation account,
	// argocd-rbac-cm, the AppProjects, the root Application, the token
	// Secret) differs from what the platform compiles to (deploy and
	// validate); for a deploy that reconciled, what still differs after.
	BootstrapDrift []Drift `json:"bootstrap_drift,omitempty"`
	// Reconciled is the drift a deploy found before it ran the generated
	// bootstrap again to remove it.
	Reconciled []Drift `json:"reconciled,omitempty"`
	// Health is the platform's health aggregated from its apps', and
	// Stacks each stack's (RFC 5.3's table; validate).
	Health string        `json:"health,omitempty"`
	Stacks []StackHealth `json:"stacks,omitempty"`
	// Resources are the resource nodes' states (validate; RFC 5.1).
	Resources []ResourceHealth `json:"resources,omitempty"`
	// Compliance are the invariants checked on the live cluster
	// (validate).
	Compliance []Compliance `json:"compliance,omitempty"`
	// IgnoredWorkflows carry the action's label but are not runs platc
	// can prove this platform started; they were not followed.
	IgnoredWorkflows []IgnoredWorkflow `json:"ignored_workflows,omitempty"`
	// Critical are the critical components' workloads (validate): Argo
	// CD's application controller, repo-server and server, the workflow
	// controller, Argo Events' controller.
	Critical []snapshot.Workload `json:"critical_components,omitempty"`
	// Snapshot is Phase 0's cluster snapshot (SNAPSHOT_FILE,
	// SNAPSHOT_BASELINE), and Changes what changed since the baseline.
	Snapshot  *SnapshotInfo     `json:"snapshot,omitempty"`
	Changes   []snapshot.Change `json:"changes_since_baseline,omitempty"`
	Plan      []string          `json:"plan,omitempty"`
	Metrics   map[string]int    `json:"metrics"`
	Recommend []string          `json:"recommendations"`
	Problems  []string          `json:"problems,omitempty"`
}

// WorkflowInfo names the Argo Workflow that ran the action.
type WorkflowInfo struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Phase     string `json:"phase"`
	Message   string `json:"message,omitempty"`
	Attached  bool   `json:"attached,omitempty"` // platc followed a run already in progress
	// StoppedChildren are the child workflows of a split parent that
	// still ran when it ended, which platc stopped.
	StoppedChildren []string `json:"stopped_children,omitempty"`
}

// PreflightInfo is Phase 0's validation report.
type PreflightInfo struct {
	Tools   []preflight.ToolResult   `json:"tools,omitempty"`
	Cluster *preflight.ClusterReport `json:"cluster,omitempty"`
}

// Component is one app's line in the report.
type Component struct {
	App         string  `json:"app"`
	Stack       string  `json:"stack,omitempty"`
	Application string  `json:"application"`
	Status      string  `json:"status"`
	Health      string  `json:"health,omitempty"`
	Sync        string  `json:"sync,omitempty"`
	Duration    float64 `json:"duration_seconds,omitempty"`
	Message     string  `json:"message,omitempty"`
	// StartedAt and FinishedAt are the app's node in the workflow, for
	// its span; zero when the workflow did not run it.
	StartedAt  time.Time `json:"-"`
	FinishedAt time.Time `json:"-"`
}

// Failure is one failed app with the failing node's message.
type Failure struct {
	App     string `json:"app,omitempty"`
	Step    string `json:"step,omitempty"` // a failed step that is not an app's task
	Node    string `json:"node,omitempty"`
	Message string `json:"message"`
}

// IgnoredWorkflow is a Workflow labelled like a run of the action that
// platc did not follow, and why.
type IgnoredWorkflow struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Orphan is something teardown should have removed and did not.
type Orphan struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// App is the app whose instance label a leftover object carries.
	App    string `json:"app,omitempty"`
	Reason string `json:"reason"`
}

// RemovedApp is the Application of an app that has left the platform,
// with what it recorded when it was deployed and what this run did to it.
type RemovedApp struct {
	Application string   `json:"application"`
	Namespace   string   `json:"namespace"`
	App         string   `json:"app,omitempty"`
	Project     string   `json:"project,omitempty"`
	DependsOn   []string `json:"depends_on"` // recorded dependencies' Applications
	Volumes     string   `json:"volumes,omitempty"`
	Timeout     string   `json:"timeout,omitempty"`
	// Status is left (PRUNE=true deletes it), blocked (its record cannot
	// drive a deletion), would-delete (dry run), deleted or failed.
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

func (rep *Report) recommend(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	for _, r := range rep.Recommend {
		if r == s {
			return
		}
	}
	rep.Recommend = append(rep.Recommend, s)
}

// WriteJSON writes the report as one line of JSON, so that a log
// collector reading JSON lines takes it whole.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(rep)
}

// WriteText writes the report for people, one line per item: free text
// is folded onto its line, so no message can start a line of its own.
func (rep *Report) WriteText(w io.Writer) {
	title := strings.ToUpper(rep.Action[:1]) + rep.Action[1:]
	if rep.DryRun {
		title += " (dry run)"
	}
	fmt.Fprintf(w, "\n== %s report ==\n", title)
	fmt.Fprintf(w, "Summary: %s\n", oneLine(rep.Summary))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  status\t%s (exit %d)\n", rep.Status, rep.ExitCode)
	if rep.Platform != "" {
		fmt.Fprintf(tw, "  platform\t%s, environment %s, scope %s\n", rep.Platform, rep.Environment, rep.Scope)
	}
	if d := rep.Dag; d != nil {
		fmt.Fprintf(tw, "  dag\t%s (this run only): %s\n", d.Path, oneLine(strings.Join(d.changes(), "; ")))
	}
	if e := rep.Env; e != nil {
		fmt.Fprintf(tw, "  environment config\t%s: %s; %s\n", e.Path, oneLine(strings.Join(e.Settings, ", ")), oneLine(e.Applied))
	}
	fmt.Fprintf(tw, "  duration\t%s\n", human(time.Duration(rep.Duration*float64(time.Second))))
	if wf := rep.Workflow; wf != nil {
		att := ""
		if wf.Attached {
			att = ", already running when platc started"
		}
		fmt.Fprintf(tw, "  workflow\t%s/%s: %s%s\n", wf.Namespace, wf.Name, orText(wf.Phase, "not started"), att)
	}
	tw.Flush()

	if pf := rep.Preflight; pf != nil {
		fmt.Fprintf(w, "\nPhase 0 (prerequisites):\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range pf.Tools {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", mark(string(t.Status) == "ok", false), t.Name, oneLine(t.Message))
		}
		if c := pf.Cluster; c != nil {
			for _, ch := range c.Checks {
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", checkMark(ch.Status), ch.Name, oneLine(ch.Message))
			}
		}
		tw.Flush()
	}
	if len(rep.Critical) > 0 {
		fmt.Fprintf(w, "\nCritical components:\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range rep.Critical {
			what := "namespace " + c.Namespace // none found there
			if c.Name != "" {
				what = c.Kind + " " + c.Namespace + "/" + c.Name
			}
			detail := fmt.Sprintf("%d/%d Ready", c.Ready, c.Replicas)
			if c.Version != "" {
				detail += ", version " + c.Version
			}
			if c.Message != "" {
				detail = oneLine(c.Message)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark(c.Status == snapshot.Ready, false), c.Component, what, detail)
		}
		tw.Flush()
	}
	if s := rep.Snapshot; s != nil {
		fmt.Fprintf(w, "\nCluster snapshot:")
		if s.File != "" {
			fmt.Fprintf(w, " %s;", s.File)
		}
		fmt.Fprintf(w, " %d nodes, %d namespaces, %d CRDs, %d Applications\n", s.Nodes, s.Namespaces, s.CRDs, s.Applications)
		if len(s.PreExistingCRDs) > 0 {
			fmt.Fprintf(w, "  pre-existing CRDs (owned by neither a platform app nor the bootstrap): %s\n", oneLine(strings.Join(s.PreExistingCRDs, ", ")))
		}
		for _, t := range s.Truncated {
			fmt.Fprintf(w, "  truncated: %s\n", oneLine(t))
		}
		for _, u := range s.Unread {
			fmt.Fprintf(w, "  not read: %s\n", oneLine(u))
		}
		if s.Baseline != "" {
			fmt.Fprintf(w, "\nChanges since the baseline %s (taken %s):\n", oneLine(s.Baseline), s.BaselineTakenAt)
			if len(rep.Changes) == 0 {
				fmt.Fprintf(w, "  none\n")
			}
			for _, c := range rep.Changes {
				fmt.Fprintf(w, "  %s\n", oneLine(c.Text()))
			}
		}
	}
	if len(rep.Components) > 0 {
		fmt.Fprintf(w, "\nComponents:\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  APP\tSTACK\tSTATUS\tHEALTH\tSYNC\tDURATION\tMESSAGE\n")
		for _, c := range rep.Components {
			d := "-"
			if c.Duration > 0 {
				d = human(time.Duration(c.Duration * float64(time.Second)))
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.App, orText(c.Stack, "-"), c.Status, orText(c.Health, "-"), orText(c.Sync, "-"), d, oneLine(c.Message))
		}
		tw.Flush()
	}
	if rep.Health != "" {
		fmt.Fprintf(w, "\nHealth (RFC 5.3 aggregation):\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  platform\t%s\n", rep.Health)
		for _, st := range rep.Stacks {
			fmt.Fprintf(tw, "  stack %s\t%s\t%s\n", st.Stack, st.Health, countsText(st.Apps))
		}
		tw.Flush()
	}
	if len(rep.Resources) > 0 {
		fmt.Fprintf(w, "\nResource nodes:\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, rh := range rep.Resources {
			fmt.Fprintf(tw, "  %s\t%s %s\t%s\t%s\t%s\n", rh.Resource, rh.Kind, rh.Object, orText(rh.Health, "not checked"), oneLine(rh.JudgedBy), oneLine(rh.Message))
		}
		tw.Flush()
	}
	if len(rep.Compliance) > 0 {
		fmt.Fprintf(w, "\nCompliance:\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range rep.Compliance {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark(c.Status == "pass", false), c.Invariant, c.Check, oneLine(c.Detail))
		}
		tw.Flush()
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintf(w, "\nFailures:\n")
		for _, f := range rep.Failures {
			node := ""
			if f.Node != "" {
				node = " (node " + f.Node + ")"
			}
			who := f.App
			if who == "" {
				who = "step " + f.Step
			}
			fmt.Fprintf(w, "  %s%s: %s\n", who, node, oneLine(f.Message))
		}
	}
	writeList(w, "Removed:", rep.Removed)
	writeList(w, "Retained (volume policy):", rep.Retained)
	if len(rep.Orphans) > 0 {
		fmt.Fprintf(w, "\nOrphans (not removed):\n")
		for _, o := range rep.Orphans {
			ns := ""
			if o.Namespace != "" {
				ns = o.Namespace + "/"
			}
			app := ""
			if o.App != "" {
				app = " (app " + o.App + ")"
			}
			fmt.Fprintf(w, "  %s %s%s%s: %s\n", o.Kind, ns, o.Name, app, oneLine(o.Reason))
		}
	}
	if len(rep.RemovedApps) > 0 {
		fmt.Fprintf(w, "\nRemoved apps (no longer in the platform; deletion order, dependents first):\n")
		for _, ra := range rep.RemovedApps {
			deps := "none"
			if len(ra.DependsOn) > 0 {
				deps = strings.Join(ra.DependsOn, ", ")
			}
			fmt.Fprintf(w, "  Application %s/%s (app %s): %s; depended on %s; volumes %s, timeout %s", ra.Namespace, ra.Application,
				orText(ra.App, "unknown"), ra.Status, deps, orText(ra.Volumes, "unknown"), orText(ra.Timeout, "unknown"))
			if ra.Message != "" {
				fmt.Fprintf(w, "; %s", oneLine(ra.Message))
			}
			fmt.Fprintln(w)
		}
	}
	if len(rep.Reconciled) > 0 {
		fmt.Fprintf(w, "\nReconciled (differed before the bootstrap ran again):\n")
		for _, line := range driftLines(rep.Reconciled) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if len(rep.BootstrapDrift) > 0 {
		fmt.Fprintf(w, "\nBootstrap drift (installed by the bootstrap, not what the platform compiles to now; one line per kind):\n")
		for _, line := range driftLines(rep.BootstrapDrift) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	if len(rep.IgnoredWorkflows) > 0 {
		fmt.Fprintf(w, "\nIgnored workflows (labelled like a run of this action, but not one of this platform):\n")
		for _, iw := range rep.IgnoredWorkflows {
			fmt.Fprintf(w, "  %s: %s\n", iw.Name, oneLine(iw.Reason))
		}
	}
	writeList(w, "Would do:", rep.Plan)
	writeList(w, "Problems:", rep.Problems)
	if len(rep.Metrics) > 0 {
		fmt.Fprintf(w, "\nMetrics:")
		for _, k := range metricOrder {
			if v, ok := rep.Metrics[k]; ok {
				fmt.Fprintf(w, " %s=%d", k, v)
			}
		}
		fmt.Fprintln(w)
	}
	if len(rep.Recommend) > 0 {
		fmt.Fprintf(w, "\nRecommendations:\n")
		for _, r := range rep.Recommend {
			fmt.Fprintf(w, "  - %s\n", oneLine(r))
		}
	}
}

// metricOrder fixes the order metrics print in.
var metricOrder = []string{"apps", "succeeded", "skipped", "converged", "failed", "omitted", "running", "not_started",
	"healthy", "degraded", "unhealthy", "removed", "retained", "orphans", "removed_apps", "pruned", "bootstrap_drift", "reconciled"}

func mark(ok, warn bool) string {
	switch {
	case ok:
		return "ok"
	case warn:
		return "WARN"
	}
	return "FAIL"
}

func checkMark(s preflight.Status) string {
	switch s {
	case preflight.Pass:
		return "ok"
	case preflight.Warn:
		return "WARN"
	case preflight.Fail:
		return "FAIL"
	}
	return "info"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeList writes a titled section of one line per item, if there are
// any items.
func writeList(w io.Writer, title string, items []string) {
	if len(items) > 0 {
		fmt.Fprintf(w, "\n%s\n", title)
		for _, it := range items {
			fmt.Fprintf(w, "  %s\n", oneLine(it))
		}
	}
}

// Sanitize passes every string of the report through clean: finish uses
// the logger's Scrub, so the report is redacted and escaped as the log
// lines are. Walking every field, rather than the ones known to carry
// cluster text, keeps a field added later from printing a token in clear
// (issue 21: an API error's token was on stdout while the log said
// [redacted]).
func (rep *Report) Sanitize(clean func(string) string) {
	sanitize(reflect.ValueOf(rep).Elem(), clean)
}

func sanitize(v reflect.Value, clean func(string) string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(clean(v.String()))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface {
				// An interface's value cannot be set in place: copy it.
				c := reflect.New(e.Type()).Elem()
				c.Set(e)
				sanitize(c, clean)
				if v.CanSet() {
					v.Set(c)
				}
				return
			}
			sanitize(e, clean)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				sanitize(v.Field(i), clean)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			sanitize(v.Index(i), clean)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		// Keys are platc's own (metric names); values are cleaned.
		for _, k := range v.MapKeys() {
			c := reflect.New(v.Type().Elem()).Elem()
			c.Set(v.MapIndex(k))
			sanitize(c, clean)
			v.SetMapIndex(k, c)
		}
	}
}

func dagInfo(d *config.DagFile, apps []*ir.App) *DagInfo {
	info := &DagInfo{Path: d.Path, SHA256: d.Sum}
	if d.HasSubset() {
		for _, a := range apps {
			info.Subset = append(info.Subset, a.Name)
		}
	}
	for _, e := range d.Add {
		info.Added = append(info.Added, e.App.Name+" → "+e.DependsOn.Name)
	}
	for _, e := range d.Remove {
		info.Removed = append(info.Removed, e.App.Name+" → "+e.DependsOn.Name)
	}
	for _, t := range d.Timeouts {
		info.Timeouts = append(info.Timeouts, t.App.Name)
	}
	for _, r := range d.Retries {
		info.Retries = append(info.Retries, r.App.Name)
	}
	return info
}

// changes says what the customization does, for the log.
func (d *DagInfo) changes() []string {
	var out []string
	if d.Subset != nil {
		out = append(out, fmt.Sprintf("%d %s chosen", len(d.Subset), english.Plural(len(d.Subset), "app")))
	}
	add := func(list []string, what string) {
		if len(list) > 0 {
			out = append(out, what+" "+strings.Join(list, ", "))
		}
	}
	add(d.Added, "dependencies added:")
	add(d.Removed, "dependencies removed:")
	add(d.Timeouts, "timeouts of")
	add(d.Retries, "retries of")
	if len(out) == 0 {
		out = append(out, "it changes nothing")
	}
	return out
}
