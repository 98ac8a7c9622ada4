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
}

// DefaultEnv is the name of the implicit environment of a platform that
// declares none.
const DefaultEnv = "default"

// Compile compiles m for one environment. It returns a Program only when
// there are no errors; the diagnostics are sorted and free of duplicates.
func Compile(m *lang.Module, opts Options) (*ir.Program, hcl.Diagnostics) {
	s := buildStructure(m)
	p, diags := lower(m, s, opts.Env)
	diags = diag.Sort(append(s.diags, diags...))
	if diags.HasErrors() {
		return nil, diags
	}
	return p, diags
}

// CompileAll compiles m for every environment it declares, so that an
// expression that only fails in one environment is still reported.
func CompileAll(m *lang.Module) ([]*ir.Program, hcl.Diagnostics) {
	s := buildStructure(m)
	all := slices.Clone(s.diags)
	var progs []*ir.Program
	for _, env := range EnvNames(m) {
		p, diags := lower(m, s, env)
		all = append(all, diags...)
		if p != nil {
			progs = append(progs, p)
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
	health     map[string]*lang.Health
	hs         *healthState
	diags      hcl.Diagnostics
	// envInfo describes the environment compiled, for messages.
	envInfo *envInfo
}

func lower(m *lang.Module, s *structure, envName string) (*ir.Program, hcl.Diagnostics) {
	c := &compilation{m: m, s: s, prog: &ir.Program{}}
	envVal, ok := c.environment(envName)
	if !ok {
		return nil, c.diags
	}
	platformVal := c.platform(envVal)
	c.eval = newEvaluator(map[string]cty.Value{"env": envVal, "platform": platformVal})
	c.eval.env = c.envInfo
	c.resolveClasses()
	c.healthRules()
	c.apps()
	c.events()
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
	e := newEvaluator(nil)
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
		jv, err := jsonValue(v)
		if err != nil {
			c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Unsupported value", fmt.Sprintf("The value of %q cannot be represented as JSON: %s.", n, err)))
			continue
		}
		c.prog.Env.Vars = append(c.prog.Env.Vars, ir.Var{Name: n, Value: jv})
	}
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
	e := newEvaluator(map[string]cty.Value{"env": envVal})
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
		Namespace:   e.strOr(a.Namespace, "argocd"),
		Project:     e.strOr(a.Project, "default"),
		Version:     e.strOr(a.Version, ""),
		TokenSecret: ir.SecretRef{Name: "platc-argocd-token", Key: "token"},
	}
	p.ArgoCD.Server = e.strOr(a.Server, "argocd-server."+p.ArgoCD.Namespace+".svc:443")
	p.ArgoCD.Insecure, _ = e.boolean(a.Insecure)
	p.ArgoCD.PlainText, _ = e.boolean(a.PlainText)
	p.ArgoCD.GRPCWeb, _ = e.boolean(a.GRPCWeb)
	if ts := a.TokenSecret; ts != nil {
		p.ArgoCD.TokenSecret = ir.SecretRef{Name: e.strOr(ts.Name, ""), Key: e.strOr(ts.Key, "")}
		c.checkObjectName(e, ts.Name, "secret name")
		c.checkSecretKey(e, ts.Key)
	}
	c.checkLabel(e, a.Namespace, "namespace")
	w := lp.Workflows
	if w == nil {
		w = &lang.Workflows{}
	}
	p.Workflows = ir.Workflows{
		Namespace:      e.strOr(w.Namespace, "argo"),
		ServiceAccount: e.strOr(w.ServiceAccount, "platc-orchestrator"),
		Parallelism:    10,
		Image:          e.strOr(w.Image, ""),
	}
	c.checkLabel(e, w.Namespace, "namespace")
	c.checkObjectName(e, w.ServiceAccount, "service account name")
	if n, ok := e.integer(w.Parallelism, 1); ok {
		p.Workflows.Parallelism = n
	}
	if d, ok := e.duration(w.Timeout); ok {
		p.Workflows.Timeout = d
	}
	if g := lp.Git; g != nil {
		p.Git = ir.Git{
			RepoURL:  e.strOr(g.RepoURL, ""),
			Revision: e.strOr(g.Revision, "HEAD"),
			Path:     e.strOr(g.Path, "generated"),
		}
	} else {
		c.diags = append(c.diags, diag.Error(lp.DeclRange, "Missing git block",
			"The platform block needs a git block with the repository that generated output is committed to, so the root Application can point at it:\n  git {\n    repo_url = \"https://git.example.com/platform.git\"\n    revision = \"v1.0.0\"\n  }"))
	}
	if b := lp.Bootstrap; b != nil {
		p.Bootstrap = ir.Bootstrap{
			ArgoCDChart:        e.strOr(b.ArgoCDChart, ""),
			WorkflowsChart:     e.strOr(b.WorkflowsChart, ""),
			EventsChart:        e.strOr(b.EventsChart, ""),
			SealedSecretsChart: e.strOr(b.SealedSecretsChart, ""),
			ArgoRepo:           e.strOr(b.ArgoRepo, ""),
			SealedSecretsRepo:  e.strOr(b.SealedSecretsRepo, ""),
			ArgoCDAppsChart:    e.strOr(b.ArgoCDAppsChart, ""),
		}
	}
	bootstrapVersions(&p.Bootstrap)
	if p.Bootstrap.ArgoRepo == "" {
		p.Bootstrap.ArgoRepo = "https://argoproj.github.io/argo-helm"
	}
	if p.Bootstrap.SealedSecretsRepo == "" {
		p.Bootstrap.SealedSecretsRepo = "https://bitnami-labs.github.io/sealed-secrets"
	}
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

// checkLabel reports a namespace-like attribute that is not a DNS-1123
// label (Kubernetes namespaces may start with a digit).
func (c *compilation) checkLabel(e *evaluator, a *hcl.Attribute, what string) (string, bool) {
	s, ok := e.str(a)
	if !ok {
		return "", false
	}
	if len(s) > 63 || !k8sLabel.MatchString(s) {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Invalid "+what,
			fmt.Sprintf("%q is not a valid Kubernetes %s: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit.", s, what)))
		return "", false
	}
	return s, true
}

// events lowers the events block, if any.
func (c *compilation) events() {
	le := c.m.Events
	if le == nil {
		return
	}
	e := c.eval
	ev := &ir.Events{Port: 12000, Endpoint: "/push"}
	ev.Type, _ = e.oneOf(le.Type, "webhook", "github")
	if le.Type == nil {
		ev.Type = "webhook"
	}
	ev.Namespace = c.prog.Platform.Workflows.Namespace
	if ns, ok := c.checkLabel(e, le.Namespace, "namespace"); ok {
		ev.Namespace = ns
	}
	if p, ok := e.integer(le.Port, 1); ok {
		ev.Port = p
	}
	ev.Endpoint = e.strOr(le.Endpoint, ev.Endpoint)
	ev.Branch = e.strOr(le.Branch, c.prog.Platform.Git.Revision)
	ev.Repository = e.strOr(le.Repository, "")
	ev.URL = e.strOr(le.URL, "")
	if le.Secret != nil {
		ev.Secret = &ir.SecretRef{Name: e.strOr(le.Secret.Name, ""), Key: e.strOr(le.Secret.Key, "")}
	}
	if ev.Type == "github" && ev.Repository == "" {
		c.diags = append(c.diags, diag.Error(le.DeclRange, "Missing repository",
			"A github events block needs repository = \"OWNER/NAME\", the repository whose pushes trigger a deploy."))
	}
	c.prog.Events = ev
}

// dirOf is the directory of the file a range is in, for resolving paths
// written relative to the declaring file.
func dirOf(r hcl.Range) string { return filepath.Dir(r.Filename) }
