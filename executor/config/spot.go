package config

import (
	"errors"
	"fmt"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/lang"
)

// compileSpot compiles the workflow of a run that the committed
// WorkflowTemplates cannot serve (a stack or app scope, a DAG
// customization, environment.yaml's timeouts or retries) into
// cfg.SpotWorkflow, so that a workflow past a limit is refused here,
// before the executor touches the cluster, and never by the API server.
// The emitter decides what is over which limit (argo.LimitError); this
// adds where the run asked for it and what the operator can do instead.
func compileSpot(cfg *Config, p *Problems) {
	if cfg.Program == nil || cfg.Scope.Kind == ScopePlatform || (cfg.Action != Deploy && cfg.Action != Teardown) {
		return
	}
	var wf *wfv1.Workflow
	var err error
	if cfg.Action == Deploy {
		wf, err = argo.ScopedDeploy(cfg.Program, cfg.ScopeApps)
	} else {
		wf, err = argo.ScopedTeardown(cfg.Program, cfg.ScopeApps)
	}
	var le *argo.LimitError
	switch {
	case errors.As(err, &le):
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: le.Summary, Detail: le.Detail + " " + spotFix(cfg, le)}
		if r := spotRange(cfg); r != nil {
			d.Subject = r
		}
		p.Diags = append(p.Diags, d)
	case err != nil:
		p.add("compiling the %s workflow for %s: %v", cfg.Action, cfg.Scope, err)
	default:
		cfg.SpotWorkflow = wf
	}
}

// spotFix is what the operator can do about a workflow compiled on the
// spot that is over a limit, by what asked for it.
func spotFix(cfg *Config, le *argo.LimitError) string {
	var fix string
	switch cfg.Scope.Kind {
	case ScopeStack, ScopeApp:
		fix = fmt.Sprintf("Narrow TARGET_SCOPE (one app, or a smaller stack), or run the %s without TARGET_SCOPE: the whole platform runs the committed WorkflowTemplates, which platc build splits.", cfg.Action)
	case ScopeDag:
		fix = fmt.Sprintf("Narrow the subset of %s, or make the change in the platform source and commit what platc build writes, so that the committed, split workflows run it.", cfg.DagFile.Path)
	case ScopeEnv:
		fix = fmt.Sprintf("Write these timeouts and retries into the platform source (its defaults block) and commit what platc build writes, so that the committed, split deploy runs with them; or remove them from %s.", cfg.EnvFile.Path)
	}
	if n := le.Nodes(); n > 0 {
		fix += fmt.Sprintf(" A node budget of at least %d (platform.workflows.node_budget) would also admit it, if Argo's controller can hold that many nodes in one Workflow.", n)
	}
	return fix
}

// spotRange is where the run asked for a workflow compiled on the spot:
// the stack or app TARGET_SCOPE names, the DAG customization's subset (or
// its first line), environment.yaml's timeouts or retries.
func spotRange(cfg *Config) *hcl.Range {
	switch cfg.Scope.Kind {
	case ScopeStack:
		for _, s := range cfg.Program.Stacks {
			if s.Name == cfg.Scope.Name {
				return &s.DeclRange
			}
		}
	case ScopeApp:
		if a := cfg.Program.App(cfg.Scope.Name); a != nil {
			return &a.DeclRange
		}
	case ScopeDag:
		d := cfg.DagFile
		if len(d.Stacks) > 0 {
			return &d.Stacks[0].Range
		}
		if len(d.Apps) > 0 {
			return &d.Apps[0].Range
		}
		return &hcl.Range{Filename: d.Path, Start: hcl.InitialPos, End: hcl.InitialPos}
	case ScopeEnv:
		ef := cfg.EnvFile
		// The first of the values that make the run compiled on the spot.
		for _, attr := range []string{lang.AttrSyncTimeout, lang.AttrHealthTimeout, lang.AttrRetryLimit, lang.AttrRetryBackoff} {
			if r, ok := ef.Ranges[attr]; ok && r.Filename != "" {
				return &r
			}
		}
		return &hcl.Range{Filename: ef.Path, Start: hcl.InitialPos, End: hcl.InitialPos}
	}
	return nil
}
