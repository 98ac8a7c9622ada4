package lang

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/diag"
)

// Edits change a module's apps for one run, from outside the HCL: the
// executor's DAG customization (RFC 7.4) is the one source today. They
// are written into the module before it is compiled, so the compiler
// proves the changed graph acyclic and resolves the settings as it does
// the HCL's own. Every value keeps the range it was written at, so a
// diagnostic about it (a cycle an added edge closes, a duration out of
// range) points at the source of the edit, not the HCL.
type Edits struct {
	// What names the source in diagnostics: "DAG customization".
	What     string
	Add      []DepEdit
	Remove   []DepEdit
	Settings []AppSettings
}

// Named is an app's name as the source of an edit wrote it.
type Named struct {
	Name  string
	Range hcl.Range
}

// DepEdit is one dependency: App depends on DependsOn. Range is the
// whole edit's. Where is the source's name for the list it is in
// ("dependencies.add"), for diagnostics.
type DepEdit struct {
	App, DependsOn Named
	Range          hcl.Range
	Where          string
}

// AppSettings are timeouts and retry settings of one app; an empty
// value, or a nil Limit, leaves the app's. Limit counts retries, as the
// language does. A block the app lacks is declared at App's range.
type AppSettings struct {
	App                      Named
	Sync, Health             string
	SyncRange, HealthRange   hcl.Range
	Limit                    *int
	Backoff                  string
	LimitRange, BackoffRange hcl.Range
	Where                    string
}

// Edit writes e into the module's apps. An edit naming no app of the
// module, or removing a dependency the app does not declare itself, is a
// diagnostic at the edit; the others are still written.
func (m *Module) Edit(e Edits) hcl.Diagnostics {
	var diags hcl.Diagnostics
	apps := map[string]*App{}
	var names []string
	for _, a := range m.Apps {
		apps[a.Name] = a
		names = append(names, a.Name)
	}
	slices.Sort(names)
	app := func(n Named, where string) *App {
		if a := apps[n.Name]; a != nil {
			return a
		}
		msg := fmt.Sprintf("%s names app %q, but the platform has no such app.", where, n.Name)
		if s := diag.Suggest(n.Name, names); s != "" {
			msg += fmt.Sprintf(" Did you mean %q?", s)
		}
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown app in the " + e.What, Detail: msg, Subject: n.Range.Ptr()})
		return nil
	}
	for _, d := range e.Add {
		a, dep := app(d.App, d.Where), app(d.DependsOn, d.Where)
		if a == nil || dep == nil {
			continue
		}
		a.DependsOn = append(a.DependsOn, Ref{Kind: RefApp, Name: dep.Name, Range: d.DependsOn.Range})
	}
	for _, d := range e.Remove {
		a, dep := app(d.App, d.Where), app(d.DependsOn, d.Where)
		if a == nil || dep == nil {
			continue
		}
		own := func(r Ref) bool { return r.Kind == RefApp && r.Name == dep.Name }
		if !slices.ContainsFunc(a.DependsOn, own) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Dependency cannot be removed", Detail: removeRefusal(a, dep, e.What), Subject: d.Range.Ptr()})
			continue
		}
		// A fresh slice: the parsed module's stays as written.
		a.DependsOn = slices.DeleteFunc(slices.Clone(a.DependsOn), own)
	}
	for _, s := range e.Settings {
		a := app(s.App, s.Where)
		if a == nil {
			continue
		}
		if s.Sync != "" || s.Health != "" {
			if a.Timeouts == nil {
				a.Timeouts = &Timeouts{DeclRange: s.App.Range}
			}
			setStr(&a.Timeouts.Sync, "sync", s.Sync, s.SyncRange)
			setStr(&a.Timeouts.Health, "health", s.Health, s.HealthRange)
		}
		if s.Limit != nil || s.Backoff != "" {
			if a.Retry == nil {
				a.Retry = &Retry{DeclRange: s.App.Range}
			}
			if s.Limit != nil {
				a.Retry.Limit = staticAttr("limit", cty.NumberIntVal(int64(*s.Limit)), s.LimitRange)
			}
			setStr(&a.Retry.Backoff, "backoff", s.Backoff, s.BackoffRange)
		}
	}
	return diags
}

// staticAttr is attribute name set to v, as if written at rng.
func staticAttr(name string, v cty.Value, rng hcl.Range) *hcl.Attribute {
	return &hcl.Attribute{Name: name, Expr: hcl.StaticExpr(v, rng), Range: rng, NameRange: rng}
}

// setStr sets *dst to name = v, written at rng, unless v is empty.
func setStr(dst **hcl.Attribute, name, v string, rng hcl.Range) {
	if v != "" {
		*dst = staticAttr(name, cty.StringVal(v), rng)
	}
}

// removeRefusal says why an edge the app does not declare itself cannot
// be removed for a run: it comes from its stack's depends_on (the
// layering, which holds for every app of it), or it does not exist.
func removeRefusal(a, dep *App, what string) string {
	if a.Stack != nil {
		for _, r := range a.Stack.DependsOn {
			if r.Kind == RefApp && r.Name == dep.Name || r.Kind == RefStack && dep.Stack != nil && dep.Stack.Name == r.Name {
				return fmt.Sprintf("%s depends on %s through stack %s's depends_on (%s, at %s), which orders every app of the stack; a %s removes only an app's own dependencies. Change the stack's dependency in the platform source instead.",
					a.Name, dep.Name, a.Stack.Name, r, r.Range, what)
			}
		}
	}
	var own []string
	for _, r := range a.DependsOn {
		own = append(own, r.String())
	}
	if len(own) == 0 {
		return fmt.Sprintf("%s does not depend on %s: it declares no dependencies of its own.", a.Name, dep.Name)
	}
	return fmt.Sprintf("%s does not depend on %s; its own dependencies are %s.", a.Name, dep.Name, strings.Join(own, ", "))
}
