package compiler

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// Options select what to compile.
type Options struct {
	// Env names the environment to compile. Empty means the first
	// environment declared (or an implicit "default" environment when the
	// platform declares none).
	Env string
	// Generator is the platc compiling, copied into the Program.
	Generator ir.Generator
	// Checkout is the Git work tree the platform directory is in
	// (FindCheckout), or nil: Git paths of the platform's repository are
	// checked against it when it is a clone of that repository.
	Checkout *Checkout
}

// DefaultEnv is the name of the implicit environment of a platform that
// declares none.
const DefaultEnv = "default"

// Compile compiles m for one environment. It returns a Program only when
// there are no errors; the diagnostics are sorted and free of duplicates.
func Compile(m *lang.Module, opts Options) (*ir.Program, hcl.Diagnostics) {
	s := buildStructure(m)
	if d := checkScale(m, s, []string{opts.Env}); d != nil {
		return nil, diag.Sort(append(s.diags, d...))
	}
	p, diags := lower(m, s, opts.Env, opts.Checkout)
	if p != nil {
		if d := newOutputBudget().charge(m, p); d != nil {
			diags = append(diags, d)
		}
	}
	diags = diag.Sort(append(s.diags, diags...))
	if diags.HasErrors() {
		return nil, diags
	}
	p.Generator = opts.Generator
	return p, diags
}

// CompileAll compiles m for every environment it declares, so that an
// expression that only fails in one environment is still reported.
// opts.Env is ignored.
func CompileAll(m *lang.Module, opts Options) ([]*ir.Program, hcl.Diagnostics) {
	s := buildStructure(m)
	all := slices.Clone(s.diags)
	envs := EnvNames(m)
	if d := checkScale(m, s, envs); d != nil {
		return nil, diag.Sort(append(all, d...))
	}
	out := newOutputBudget()
	var progs []*ir.Program
	for _, env := range envs {
		p, diags := lower(m, s, env, opts.Checkout)
		all = append(all, diags...)
		if p != nil {
			p.Generator = opts.Generator
			progs = append(progs, p)
			// Past the budget, lowering more environments only costs
			// memory: stop at the one that exceeded it.
			if d := out.charge(m, p); d != nil {
				all = append(all, d)
				break
			}
		}
	}
	all = diag.Sort(all)
	if all.HasErrors() {
		return nil, all
	}
	return progs, all
}

// EnvNames lists the environments of m in declaration order, or the
// implicit default environment.
func EnvNames(m *lang.Module) []string {
	if len(m.Environments) == 0 {
		return []string{DefaultEnv}
	}
	var names []string
	for _, e := range m.Environments {
		if !slices.Contains(names, e.Name) {
			names = append(names, e.Name)
		}
	}
	return names
}

// compilation is the state of lowering one environment.
type compilation struct {
	m          *lang.Module
	s          *structure
	prog       *ir.Program
	eval       *evaluator
	classes    map[string]*class
	classNames []string
	classSug   *diag.Suggester
	budget     *budget
	health     map[string]*lang.Health
	hs         *healthState
	diags      hcl.Diagnostics
	// envInfo describes the environment compiled, for messages.
	envInfo *envInfo
	// checkout is the work tree Git paths are checked in, or nil.
	checkout *Checkout
}

func lower(m *lang.Module, s *structure, envName string, checkout *Checkout) (*ir.Program, hcl.Diagnostics) {
	c := &compilation{m: m, s: s, prog: &ir.Program{}, budget: newBudget(), checkout: checkout}
	envVal, ok := c.environment(envName)
	if !ok {
		return nil, c.diags
	}
	platformVal := c.platform(envVal)
	c.eval = newEvaluator(map[string]cty.Value{"env": envVal, "platform": platformVal}, c.budget)
	c.eval.env = c.envInfo
	c.resolveClasses()
	c.healthRules()
	c.apps()
	c.events()
	c.schedules()
	c.alerts()
	c.credentials()
	c.diags = append(c.diags, c.eval.diags...)
	if c.diags.HasErrors() || s.diags.HasErrors() {
		return nil, c.diags
	}
	c.prog.Index()
	return c.prog, c.diags
}

// environment evaluates the chosen environment into the value of env.*.
func (c *compilation) environment(name string) (cty.Value, bool) {
	c.prog.Environments = EnvNames(c.m)
	seen := map[string]*lang.Environment{}
	var chosen *lang.Environment
	for _, e := range c.m.Environments {
		if d := checkName("environment", e.Name, e.NameRange); d != nil {
			c.diags = append(c.diags, d)
		}
		if first, ok := seen[e.Name]; ok {
			c.diags = append(c.diags, duplicateName("environment", e.Name, e.NameRange, first.NameRange))
			continue
		}
		seen[e.Name] = e
		if chosen == nil && (name == "" || name == e.Name) {
			chosen = e
		}
	}
	if len(c.m.Environments) == 0 && (name == "" || name == DefaultEnv) {
		chosen = &lang.Environment{Name: DefaultEnv}
	}
	if chosen == nil {
		detail := fmt.Sprintf("The platform declares no environment %q.%s", name, suggestion(name, c.prog.Environments))
		if len(c.m.Environments) == 0 {
			detail = fmt.Sprintf("The platform declares no environment blocks, so it has only the implicit environment %q. Declare environment %q { ... } to compile for it, or leave the environment out.", DefaultEnv, name)
		}
		c.diags = append(c.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unknown environment",
			Detail:   detail,
		})
		return cty.NilVal, false
	}
	c.prog.Env.Name = chosen.Name
	c.envInfo = &envInfo{name: chosen.Name, all: c.m.Environments}
	if len(c.m.Environments) > 0 {
		c.envInfo.decl = chosen
	}
	// Environment values are literals: they may call functions but not
	// refer to env or platform, which are built from them.
	e := newEvaluator(nil, c.budget)
	vals := map[string]cty.Value{"name": cty.StringVal(chosen.Name)}
	names := make([]string, 0, len(chosen.Attrs))
	for n := range chosen.Attrs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		a := chosen.Attrs[n]
		if n == "name" {
			c.diags = append(c.diags, diag.Error(a.NameRange, "Reserved environment attribute",
				"env.name is the environment block's label; remove this attribute, or rename it."))
			continue
		}
		v, ok := e.value(a, cty.DynamicPseudoType, "")
		if !ok {
			continue
		}
		if (n == "domain" || n == "cluster_name") && !v.Type().Equals(cty.String) {
			e.value(a, cty.String, "a string")
			continue
		}
		vals[n] = v
		jv, ok := c.dataValue(v, a.Expr.Range())
		if !ok {
			continue
		}
		c.prog.Env.Vars = append(c.prog.Env.Vars, ir.Var{Name: n, Value: jv})
	}
	c.clusters(chosen, e)
	c.diags = append(c.diags, e.diags...)
	return cty.ObjectVal(vals), true
}

func suggestion(name string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	if s := diag.Suggest(name, names); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	return fmt.Sprintf(" Declared environments: %s.", strings.Join(names, ", "))
}

// platform evaluates the platform block with env in scope, applies
// defaults, and returns the value of platform.* for other expressions.
func (c *compilation) platform(envVal cty.Value) cty.Value {
	lp := c.m.Platform
	p := &c.prog.Platform
	if lp == nil {
		return cty.EmptyObjectVal
	}
	e := newEvaluator(map[string]cty.Value{"env": envVal}, c.budget)
	e.env = c.envInfo
	defer func() { c.diags = append(c.diags, e.diags...) }()
	p.Name = lp.Name
	p.DeclRange = lp.DeclRange
	if d := checkName("platform", lp.Name, lp.NameRange); d != nil {
		c.diags = append(c.diags, d)
	}
	a := lp.ArgoCD
	if a == nil {
		a = &lang.ArgoCD{}
	}
	p.ArgoCD = ir.ArgoCD{
		Namespace:   e.typedOr(a.Namespace, gArgoCDNamespace, "argocd"),
		Project:     e.typedOr(a.Project, gProject, "default"),
		Version:     e.typedOr(a.Version, gSemver, ""),
		TokenSecret: ir.SecretRef{Name: "platc-argocd-token", Key: "token"},
	}
	p.ArgoCD.Insecure, _ = e.boolean(a.Insecure)
	// How the steps reach argocd-server. A default install serves a
	// self-signed certificate no step could verify, so by default the
	// steps talk plain HTTP/2 to the in-cluster Service and the values
	// set server.insecure; naming a server (an ingress, a certificate
	// the step image trusts) means TLS unless plaintext says otherwise.
	// docs/language.md has the trade-off.
	p.ArgoCD.PlainText = a.Server == nil
	if a.PlainText != nil {
		p.ArgoCD.PlainText, _ = e.boolean(a.PlainText)
	}
	port := "443"
	if p.ArgoCD.PlainText {
		port = "80"
	}
	p.ArgoCD.Server = e.typedOr(a.Server, gHostPort, "argocd-server."+p.ArgoCD.Namespace+".svc:"+port)
	p.ArgoCD.GRPCWeb, _ = e.boolean(a.GRPCWeb)
	p.ArgoCD.AppsPerRoot = ir.DefaultAppsPerRoot
	if n, ok := e.integer(a.ApplicationsPerRoot, 1, ir.MaxAppsPerRoot); ok {
		p.ArgoCD.AppsPerRoot = n
	}
	p.ArgoCD.ReconciliationTimeout = ir.DefaultReconciliationTimeout
	if d, ok := e.duration(a.ReconciliationTimeout, reconcileDuration); ok {
		p.ArgoCD.ReconciliationTimeout = d
	}
	if ts := a.TokenSecret; ts != nil {
		e.require(ts.Name, "name", "token_secret", ts.DeclRange)
		e.require(ts.Key, "key", "token_secret", ts.DeclRange)
		p.ArgoCD.TokenSecret = ir.SecretRef{Name: e.typedOr(ts.Name, gSecretName, ""), Key: e.typedOr(ts.Key, gSecretKey, "")}
	}
	w := lp.Workflows
	if w == nil {
		w = &lang.Workflows{}
	}
	p.Workflows = ir.Workflows{
		Namespace:      e.typedOr(w.Namespace, gNamespace, "argo"),
		ServiceAccount: e.typedOr(w.ServiceAccount, gServiceAccount, "platc-orchestrator"),
		Parallelism:    10,
		Image:          e.typedOr(w.Image, gImage, ""),
		NodeBudget:     ir.DefaultNodeBudget,
	}
	if n, ok := e.integer(w.NodeBudget, minNodeBudget, maxNodeBudget); ok {
		p.Workflows.NodeBudget = n
	}
	if n, ok := e.integer(w.Parallelism, 1, maxParallelism); ok {
		p.Workflows.Parallelism = n
	}
	if d, ok := e.duration(w.Timeout, runDuration); ok {
		p.Workflows.Timeout = d
	}
	if g := lp.Git; g != nil {
		e.require(g.RepoURL, "repo_url", "git", g.DeclRange)
		p.Git = ir.Git{
			RepoURL:  e.typedOr(g.RepoURL, gGitRepo, ""),
			Revision: e.typedOr(g.Revision, gGitRef, "HEAD"),
			Path:     e.typedOr(g.Path, gRepoPath, "generated"),
		}
	} else {
		c.diags = append(c.diags, diag.Error(lp.DeclRange, "Missing git block",
			"The platform block needs a git block with the repository that generated output is committed to, so the root Application can point at it:\n  git {\n    repo_url = \"https://git.example.com/platform.git\"\n    revision = \"v1.0.0\"\n  }"))
	}
	p.Bootstrap = e.bootstrap(lp.Bootstrap)
	return platformValue(p)
}

// bootstrap is the platform's bootstrap block, with platc's pinned
// versions and repositories for what it leaves out.
func (e *evaluator) bootstrap(b *lang.Bootstrap) ir.Bootstrap {
	var out ir.Bootstrap
	if b != nil {
		out = ir.Bootstrap{
			ArgoCDChart:        e.typedOr(b.ArgoCDChart, gChartVersion, ""),
			WorkflowsChart:     e.typedOr(b.WorkflowsChart, gChartVersion, ""),
			EventsChart:        e.typedOr(b.EventsChart, gChartVersion, ""),
			SealedSecretsChart: e.typedOr(b.SealedSecretsChart, gChartVersion, ""),
			ArgoRepo:           e.typedOr(b.ArgoRepo, gHelmRepo, ""),
			SealedSecretsRepo:  e.typedOr(b.SealedSecretsRepo, gHelmRepo, ""),
			ArgoCDAppsChart:    e.typedOr(b.ArgoCDAppsChart, gChartVersion, ""),
		}
	}
	bootstrapVersions(&out)
	if out.ArgoRepo == "" {
		out.ArgoRepo = ir.UpstreamArgoRepo
	}
	if out.SealedSecretsRepo == "" {
		out.SealedSecretsRepo = ir.UpstreamSealedSecretsRepo
	}
	return out
}

// platformValue is platform.* as expressions see it: the name and the
// argocd, workflows and git fields (the health scope has the same, see
// scope).
func platformValue(p *ir.Platform) cty.Value {
	return cty.ObjectVal(map[string]cty.Value{
		"name": cty.StringVal(p.Name),
		"argocd": cty.ObjectVal(map[string]cty.Value{
			"namespace": cty.StringVal(p.ArgoCD.Namespace),
			"project":   cty.StringVal(p.ArgoCD.Project),
			"server":    cty.StringVal(p.ArgoCD.Server),
			"version":   cty.StringVal(p.ArgoCD.Version),
		}),
		"workflows": cty.ObjectVal(map[string]cty.Value{
			"namespace":       cty.StringVal(p.Workflows.Namespace),
			"service_account": cty.StringVal(p.Workflows.ServiceAccount),
		}),
		"git": cty.ObjectVal(map[string]cty.Value{
			"repo_url": cty.StringVal(p.Git.RepoURL),
			"revision": cty.StringVal(p.Git.Revision),
			"path":     cty.StringVal(p.Git.Path),
		}),
	})
}

// Chart versions for a platform that does not pin its own. RFC 6.2.1
// forbids unversioned charts, so the bootstrap always gets a version; these
// are the versions platc's design document and example use.
const (
	defaultArgoCDChart        = "7.7.0"
	defaultWorkflowsChart     = "0.45.0"
	defaultEventsChart        = "2.4.9"
	defaultSealedSecretsChart = "2.16.2"
	defaultArgoCDAppsChart    = "2.0.2"
)

// bootstrapVersions fills in the chart versions a platform leaves out.
func bootstrapVersions(b *ir.Bootstrap) {
	for _, f := range []struct {
		v   *string
		def string
	}{
		{&b.ArgoCDChart, defaultArgoCDChart},
		{&b.WorkflowsChart, defaultWorkflowsChart},
		{&b.EventsChart, defaultEventsChart},
		{&b.SealedSecretsChart, defaultSealedSecretsChart},
		{&b.ArgoCDAppsChart, defaultArgoCDAppsChart},
	} {
		if *f.v == "" {
			*f.v = f.def
		}
	}
}

// Bounds of the numbers a platform sets.
const (
	maxParallelism = 1000
	// The node budget may be lowered to split small platforms (a test
	// does, to run a workflow of workflows on a few apps; a budget below
	// one app's task and its retries is the emitter's diagnostic), and
	// raised for a controller that offloads node status to a database;
	// at 100,000 nodes a Workflow's status is about 50 MB.
	minNodeBudget  = 10
	maxNodeBudget  = 100_000
	maxRetryLimit  = 100
	maxRetryFactor = 10
)

// events lowers the events block, if any.
func (c *compilation) events() {
	le := c.m.Events
	if le == nil {
		return
	}
	e := c.eval
	ev := &ir.Events{Port: 12000, Endpoint: "/push"}
	ev.Type, _ = e.oneOf(le.Type, "webhook", "github")
	if !e.present(le.Type) {
		ev.Type = "webhook"
	}
	ev.Namespace = e.typedOr(le.Namespace, gNamespace, c.prog.Platform.Workflows.Namespace)
	if p, ok := e.integer(le.Port, 1, 65535); ok {
		ev.Port = p
	}
	ev.Endpoint = e.typedOr(le.Endpoint, gEndpoint, ev.Endpoint)
	ev.Branch = e.typedOr(le.Branch, gGitRef, c.prog.Platform.Git.Revision)
	ev.Repository = e.typedOr(le.Repository, gGitHubRepo, "")
	ev.URL = e.typedOr(le.URL, gWebhookURL, "")
	if le.Secret != nil {
		e.require(le.Secret.Name, "name", "secret", le.Secret.DeclRange)
		e.require(le.Secret.Key, "key", "secret", le.Secret.DeclRange)
		ev.Secret = &ir.SecretRef{Name: e.typedOr(le.Secret.Name, gSecretName, ""), Key: e.typedOr(le.Secret.Key, gSecretKey, "")}
	}
	if ev.Type == "github" && !e.present(le.Repository) {
		c.diags = append(c.diags, diag.Error(le.DeclRange, "Missing repository",
			"A github events block needs repository = \"OWNER/NAME\", the repository whose pushes trigger a deploy."))
	}
	c.prog.Events = ev
}

// dirOf is the directory of the file a range is in, for resolving paths
// written relative to the declaring file.
func dirOf(r hcl.Range) string { return filepath.Dir(r.Filename) }
