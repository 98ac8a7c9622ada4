package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
)

// ScopeKind is what TARGET_SCOPE selects.
type ScopeKind int

// Scope kinds of RFC 7.1.
const (
	ScopePlatform ScopeKind = iota
	ScopeStack
	ScopeApp
	// ScopeDag is a whole-platform run with a DAG customization
	// (dag.yaml): compiled on the spot like a scoped run, for the apps its
	// subset chooses (all without one). Name is the file's Sum.
	ScopeDag
	// ScopeEnv is a whole-platform deploy whose environment.yaml sets
	// timeouts or retries: the committed WorkflowTemplate embeds the
	// platform's own, so the run's workflow is compiled on the spot with
	// the file's, like a scoped run, for every app. Name is the file's Sum.
	ScopeEnv
)

// Scope is a parsed TARGET_SCOPE: platform, stack:<name> or app:<name>.
type Scope struct {
	Kind ScopeKind
	Name string // stack or app name; empty for the platform
}

// String returns the scope as TARGET_SCOPE writes it.
func (s Scope) String() string {
	switch s.Kind {
	case ScopeStack:
		return "stack:" + s.Name
	case ScopeApp:
		return "app:" + s.Name
	case ScopeDag:
		return "dag:" + s.Name
	case ScopeEnv:
		return "env:" + s.Name
	}
	return "platform"
}

// Whole says whether the scope alone makes the run act on every app of
// the platform: the platform, or a deploy compiled on the spot for
// environment.yaml's timeouts or retries. A DAG customization without a
// subset covers every app too, but changes the graph; it stays a
// customized run.
func (s Scope) Whole() bool { return s.Kind == ScopePlatform || s.Kind == ScopeEnv }

// Label returns the scope as a Kubernetes label value: "platform",
// "stack.NAME" or "app.NAME" (a colon is not allowed in label values).
func (s Scope) Label() string { return strings.Replace(s.String(), ":", ".", 1) }

// ParseScope parses TARGET_SCOPE; empty means the platform.
func ParseScope(s string) (Scope, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "platform" {
		return Scope{Kind: ScopePlatform}, nil
	}
	kind, name, ok := strings.Cut(s, ":")
	if ok && name != "" && !strings.Contains(name, ":") {
		switch kind {
		case "stack":
			return Scope{Kind: ScopeStack, Name: name}, nil
		case "app":
			return Scope{Kind: ScopeApp, Name: name}, nil
		}
	}
	hint := ""
	if k := diag.Suggest(kind, []string{"app", "platform", "stack"}); k != "" && k != kind && ok {
		hint = fmt.Sprintf(" Did you mean %q?", k+":"+name)
	} else if !ok && diag.Suggest(s, []string{"platform"}) == "platform" {
		hint = ` Did you mean "platform"?`
	}
	return Scope{}, fmt.Errorf("TARGET_SCOPE %q is not a scope; use platform, stack:<name> or app:<name>.%s", s, hint)
}

// Resolve checks that the scope names a stack or app of p, with a
// suggestion when it does not.
func (s Scope) Resolve(p *ir.Program) error {
	switch s.Kind {
	case ScopeStack:
		if p.Stack(s.Name) != nil {
			return nil
		}
		names := make([]string, 0, len(p.Stacks))
		for _, st := range p.Stacks {
			names = append(names, st.Name)
		}
		return unknown("stack", s.Name, names)
	case ScopeApp:
		if p.App(s.Name) != nil {
			return nil
		}
		names := make([]string, 0, len(p.Apps))
		for _, a := range p.Apps {
			names = append(names, a.Name)
		}
		slices.Sort(names)
		return unknown("app", s.Name, names)
	}
	return nil
}

func unknown(kind, name string, names []string) error {
	msg := fmt.Sprintf("TARGET_SCOPE names %s %q, but the platform has no such %s.", kind, name, kind)
	if sug := diag.Suggest(name, names); sug != "" {
		return fmt.Errorf("%s Did you mean %q?", msg, kind+":"+sug)
	}
	if len(names) == 0 {
		return fmt.Errorf("%s It declares no %ss.", msg, kind)
	}
	if len(names) > 12 {
		return fmt.Errorf("%s Run 'platc plan' to list them.", msg)
	}
	return fmt.Errorf("%s Declared: %s.", msg, strings.Join(names, ", "))
}

// Apps returns the apps in scope, in p's topological order. s must have
// been resolved against p.
func (s Scope) Apps(p *ir.Program) []*ir.App {
	switch s.Kind {
	case ScopeStack:
		return slices.Clone(p.Stack(s.Name).Apps)
	case ScopeApp:
		return []*ir.App{p.App(s.Name)}
	}
	return slices.Clone(p.Apps)
}
