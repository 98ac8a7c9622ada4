package executor

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// Env is what the executor needs from its surroundings. Tests shorten the
// intervals and point ToolPath at a directory of their own.
type Env struct {
	// Stdout receives the final report: text, or one JSON line when the
	// log format is json. Log lines go to the Logger.
	Stdout io.Writer
	Log    *logging.Logger
	// ToolPath is the search path for the required tools; empty means
	// $PATH.
	ToolPath string
	// PollInterval is how often a followed workflow is read; zero means
	// 5 seconds.
	PollInterval time.Duration
	// CallTimeout bounds each API request; zero means 15 seconds.
	CallTimeout time.Duration
	UserAgent   string
	Now         func() time.Time
	// Trace is the run's span (StartTrace); nil when the run has no
	// trace context.
	Trace *Trace
	// NamespaceWait bounds teardown's wait for the namespaces it deletes
	// to go; zero means 2 minutes.
	NamespaceWait time.Duration
}

// run is one execution of one action.
type run struct {
	cfg    *config.Config
	env    Env
	log    *logging.Logger
	client *cluster.Client
	rep    *Report
	phase  string
	start  time.Time
	// limit is how long platc follows the workflow, once known.
	limit time.Duration
	// driftRefused: deploy stopped on bootstrap drift (refuseDrift).
	driftRefused bool
	// driftNote says why drift left in the report was not reconciled.
	driftNote string
	// templateWhy caches provenance's check of the action's template:
	// "" when it is this platform's.
	templateWhy *string
	// scopedSpec caches the scoped workflow's comparable spec
	// (scopedDiffers).
	scopedSpec []byte
	// childApps caches, for a workflow split into children, each child
	// WorkflowTemplate's apps, as the emitter builds them (treeNodes).
	childApps map[string][]string
	// critical are the critical components' workloads as Phase 0 read
	// them (validate, and the snapshot).
	critical []snapshot.Workload
	// listedApps is the list of Applications Phase 0 made for the
	// snapshot, until the first readAppsOnce takes it.
	listedApps *snapshot.Listed[unstructured.Unstructured]
	// built: the emitters' objects for cfg.Program, built once (built.go).
	built *built
	// mapper is API discovery's kinds, read once (restMapper).
	mapper meta.RESTMapper
}

// emitted is what the emitters build from the run's program, built on
// first use and kept for the run.
func (r *run) emitted() *built {
	if r.built == nil {
		r.built = &built{p: r.cfg.Program}
	}
	return r.built
}

// Run performs cfg.Action and returns its exit code, after writing the
// report. cfg must come from config.Load with no problems.
func Run(ctx context.Context, cfg *config.Config, env Env) int {
	if env.PollInterval <= 0 {
		env.PollInterval = 5 * time.Second
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Log == nil {
		env.Log = logging.Discard()
	}
	if env.UserAgent == "" {
		env.UserAgent = "platc"
	}
	r := &run{cfg: cfg, env: env, log: env.Log, start: env.Now()}
	p := cfg.Program
	r.rep = &Report{
		Action: string(cfg.Action), Platform: p.Platform.Name, Environment: p.Env.Name, Scope: cfg.Scope.String(),
		DryRun: cfg.DryRun, StartedAt: r.start.UTC().Truncate(time.Second), Components: []Component{}, Failures: []Failure{},
		Metrics: map[string]int{"apps": len(cfg.ScopeApps)}, Recommend: []string{},
	}
	if d := cfg.DagFile; d != nil {
		r.rep.Dag = dagInfo(d, cfg.ScopeApps)
		r.log.Infof("start", "dag", "DAG customization %s (sha256 %s…) applies to this run only: %s", d.Path, d.Sum, english.List(r.rep.Dag.changes()))
	}
	r.recordEnvFile()
	dry := ""
	if cfg.DryRun {
		dry = " (dry run: nothing will be changed)"
	}
	r.log.Infof("start", "platc", "%s of platform %q, environment %q, scope %s, %d %s%s", cfg.Action, p.Platform.Name, p.Env.Name,
		cfg.Scope, len(cfg.ScopeApps), english.Plural(len(cfg.ScopeApps), "app"), dry)
	var code int
	switch cfg.Action {
	case config.Deploy:
		code = r.deploy(ctx)
	case config.Validate:
		code = r.validate(ctx)
	case config.Teardown:
		code = r.teardown(ctx)
	default:
		r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("unknown action %q", cfg.Action))
		code = exitcode.Invalid
	}
	return r.finish(ctx, code)
}

func (r *run) now() time.Time { return r.env.Now() }

// finish completes and writes the report, exports its metrics, and
// returns code.
func (r *run) finish(ctx context.Context, code int) int {
	rep := r.rep
	rep.ExitCode = code
	rep.Duration = r.now().Sub(r.start).Round(time.Second).Seconds()
	if rep.Status == "" {
		rep.Status = map[int]string{exitcode.OK: "succeeded", exitcode.Failure: "failed", exitcode.Partial: "partial", exitcode.Invalid: "invalid", exitcode.Timeout: "timeout"}[code]
	}
	r.phase = "report"
	lvl := r.log.Infof
	if code != exitcode.OK {
		lvl = r.log.Errorf
	}
	lvl("report", "platc", "%s: %s (exit %d)", rep.Status, rep.Summary, code)
	// Everything in the report, not only the fields known to carry
	// cluster text, is redacted and escaped as the log is.
	rep.Sanitize(r.log.Scrub)
	if err := ExportMetrics(ctx, rep, r.cfg.MetricsFile, r.cfg.PushgatewayURL); err != nil {
		r.log.Warnf("report", "metrics", "%v", err)
	}
	if err := r.env.Trace.End(ctx, rep, r.now()); err != nil {
		r.log.Warnf("report", "trace", "%v", err)
	}
	if r.env.Stdout != nil {
		if r.cfg.LogFormat == logging.JSON {
			_ = rep.WriteJSON(r.env.Stdout)
		} else {
			rep.WriteText(r.env.Stdout)
		}
	}
	return code
}

// connect builds the API client. Warnings the API server sends with a
// response (a deprecated API, say) become warn lines of the log.
func (r *run) connect() error {
	rc := rest.CopyConfig(r.cfg.Kube)
	rc.WarningHandler = apiWarnings{r}
	tapCredentials(rc, r.log)
	c, err := cluster.New(rc, r.env.UserAgent, r.env.CallTimeout)
	if err != nil {
		return err
	}
	r.client = c
	return nil
}

// apiWarnings is client-go's rest.WarningHandler for the run: each
// warning goes to the log in the phase the run is in. client-go calls it
// on the goroutine that made the request, the run's own.
type apiWarnings struct{ r *run }

func (w apiWarnings) HandleWarningHeader(code int, _, text string) {
	// Only code 299 carries a warning (RFC 7234 section 5.5).
	if code == 299 && text != "" {
		w.r.log.Warnf(w.r.phase, "api-server", "API server warning: %s", text)
	}
}

// phase0 runs the prerequisite checks. tools says whether the action
// needs the RFC 3.2.1 tools. It returns the cluster report, or an exit
// code other than exitcode.OK when the action cannot go on.
func (r *run) phase0(ctx context.Context, tools bool, opts preflight.ClusterOptions) (*preflight.ClusterReport, int) {
	r.phase = "preflight"
	pf := &PreflightInfo{}
	r.rep.Preflight = pf
	if tools {
		pf.Tools = preflight.CheckTools(ctx, preflight.ToolOptions{Path: r.env.ToolPath})
		for _, t := range pf.Tools {
			switch t.Status {
			case preflight.ToolOK:
				r.log.Debugf(r.phase, t.Name, "%s", t.Message)
			case preflight.ToolAbsentOptional:
				r.log.Warnf(r.phase, t.Name, "%s", t.Message)
			default:
				r.log.Errorf(r.phase, t.Name, "%s", t.Message)
			}
		}
		if !preflight.ToolsOK(pf.Tools) {
			var bad []string
			for _, t := range pf.Tools {
				if t.Status.Fails() {
					bad = append(bad, fmt.Sprintf("%s (%s)", t.Name, t.Status))
				}
			}
			r.rep.Summary = fmt.Sprintf("required tools are missing or too old: %s", english.List(bad))
			r.rep.recommend("Run platc from the executor image, which carries every tool of RFC 3.2.1, the collections of RFC 3.2.3 and the Python packages of RFC 3.2.2, or install them at the listed versions.")
			return nil, exitcode.Invalid
		}
		r.log.Infof(r.phase, "tools", "all %d required tools, %d Ansible collections and the Python packages of Ansible's interpreter present", len(preflight.Tools), len(preflight.Collections))
	}
	if err := r.connect(); err != nil {
		r.rep.Summary = err.Error()
		return nil, exitcode.Invalid
	}
	opts.Discovered = r.resourcePermissions
	cr := preflight.CheckCluster(ctx, r.client, opts)
	r.connectivity(ctx, cr)
	r.credentials(cr)
	pf.Cluster = cr
	for _, c := range cr.Checks {
		switch c.Status {
		case preflight.Fail:
			r.log.Errorf(r.phase, c.Name, "%s", c.Message)
		case preflight.Warn:
			r.log.Warnf(r.phase, c.Name, "%s", c.Message)
		default:
			r.log.Infof(r.phase, c.Name, "%s", c.Message)
		}
	}
	if !cr.Unreachable {
		r.readComponents(ctx)
		r.takeSnapshot(ctx, cr)
	}
	if cr.Unreachable {
		r.rep.Summary = cr.Checks[len(cr.Checks)-1].Message
		r.rep.recommend("Check that the kubeconfig (%s) points at the right API server and that its credentials are current.", r.cfg.KubeconfigSource)
		return cr, exitcode.Failure
	}
	if b := cr.Blocking(); len(b) > 0 {
		var names []string
		for _, c := range b {
			names = append(names, c.Name)
		}
		r.rep.Summary = fmt.Sprintf("Phase 0 found blocking problems: %s", english.List(names))
		if len(cr.Denied) > 0 {
			r.rep.recommend("Grant the kubeconfig's user the permissions listed under 'permissions', or use an account that has them.")
		}
		return cr, exitcode.Failure
	}
	return cr, exitcode.OK
}

// clusterOptions are the Phase 0 options every action shares. The
// generated templates are needed only for the whole platform: a scoped
// workflow carries its own copy of the steps.
func (r *run) clusterOptions(perms []preflight.Permission, templates ...string) preflight.ClusterOptions {
	p := r.cfg.Program
	if r.snapshotWanted() {
		perms = append(perms, r.snapshotPermissions()...)
	}
	perms = uniquePermissions(perms)
	o := preflight.ClusterOptions{
		ArgoCDNamespace:    p.Platform.ArgoCD.Namespace,
		WorkflowsNamespace: p.Platform.Workflows.Namespace,
		Events:             p.Events != nil,
		Permissions:        perms,
	}
	if r.cfg.Scope.Kind == config.ScopePlatform {
		o.Templates, o.ClusterTemplates = templates, []string{StepsTemplate}
	}
	return o
}

// uniquePermissions drops repeats, keeping the first (and its reason):
// one access review per permission.
func uniquePermissions(perms []preflight.Permission) []preflight.Permission {
	seen := map[preflight.Permission]bool{}
	out := perms[:0:0]
	for _, p := range perms {
		k := p
		k.Why = ""
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// basePermissions are what Phase 0 itself needs.
func basePermissions() []preflight.Permission {
	return []preflight.Permission{
		{Verb: "list", Resource: "nodes", Why: "Phase 0 checks nodes are Ready and not under disk, memory or PID pressure"},
		{Verb: "list", Resource: "pods", Namespace: "kube-system", Why: "Phase 0 checks CoreDNS runs"},
		{Verb: "get", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Why: "to tell whether Argo CD and Argo Workflows are installed"},
		{Verb: "get", Resource: "namespaces", Why: "to tell whether the Argo namespaces exist"},
	}
}

// workflowPermissions are what running the workflow compiled from
// template needs.
func (r *run) workflowPermissions(template string) []preflight.Permission {
	wns := r.cfg.Program.Platform.Workflows.Namespace
	perms := []preflight.Permission{
		{Verb: "create", Group: "argoproj.io", Resource: "workflows", Namespace: wns, Why: "to submit the workflow"},
		{Verb: "get", Group: "argoproj.io", Resource: "workflows", Namespace: wns, Why: "to follow it"},
		{Verb: "list", Group: "argoproj.io", Resource: "workflows", Namespace: wns, Why: "to find a run already in progress"},
	}
	if r.cfg.Scope.Kind != config.ScopePlatform {
		return perms // a scoped workflow is compiled here, not read from templates
	}
	perms = append(perms,
		preflight.Permission{Verb: "get", Group: "argoproj.io", Resource: "workflowtemplates", Namespace: wns, Why: "to check the generated templates are there"},
		preflight.Permission{Verb: "get", Group: "argoproj.io", Resource: "clusterworkflowtemplates", Why: "to check the generated step templates are there"})
	if o, err := r.emitted().Objects(); err == nil && len(o.Children[template]) > 0 {
		// Only a split workflow leaves children running when its parent
		// ends (stopEndedChildren). Without it platc warns with the
		// command instead.
		perms = append(perms, preflight.Permission{Verb: "patch", Group: "argoproj.io", Resource: "workflows", Namespace: wns, Optional: true,
			Why: "to stop, as 'argo stop' does, the child workflows a split " + template + " leaves running when its parent ends"})
	}
	return perms
}

func (r *run) appPermissions() []preflight.Permission {
	return []preflight.Permission{{Verb: "list", Group: "argoproj.io", Resource: "applications", Namespace: r.cfg.Program.Platform.ArgoCD.Namespace, Why: "to read the Applications' health"}}
}

// timeout is how long platc follows a workflow: ACTION_TIMEOUT, else the
// deadline this source compiles the workflow to (ownDeadline) plus a
// grace period for the controller to mark it, else six hours.
func (r *run) timeout(deadlineSeconds *int64) time.Duration {
	switch {
	case r.cfg.Timeout > 0:
		r.limit = r.cfg.Timeout
	case deadlineSeconds != nil && *deadlineSeconds > 0:
		r.limit = time.Duration(*deadlineSeconds)*time.Second + 5*time.Minute
	default:
		r.limit = 6 * time.Hour
	}
	return r.limit
}

func stackOf(a *ir.App) string {
	if a.Stack == nil {
		return ""
	}
	return a.Stack.Name
}
