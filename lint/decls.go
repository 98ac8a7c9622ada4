package lint

import "github.com/platc/platc/lang"

// Decls indexes a module's named blocks, built once per lint run (as
// go/analysis hands every pass its TypesInfo), so that a rule finds the
// block behind an IR app, stack, class or health rule without a search
// of its own. When a name is declared twice, the first declaration is
// the one indexed, as the compiler keeps the first.
type Decls struct {
	apps    map[string]*lang.App
	stacks  map[string]*lang.Stack
	classes map[string]*lang.Class
	health  map[string]*lang.Health
}

// NewDecls indexes m; m may be nil.
func NewDecls(m *lang.Module) *Decls {
	if m == nil {
		m = &lang.Module{}
	}
	return &Decls{
		apps:    firstByName(m.Apps, func(a *lang.App) string { return a.Name }),
		stacks:  firstByName(m.Stacks, func(s *lang.Stack) string { return s.Name }),
		classes: firstByName(m.Classes, func(c *lang.Class) string { return c.Name }),
		health:  firstByName(m.Health, func(h *lang.Health) string { return h.Kind }),
	}
}

// firstByName maps each name to the first block that has it.
func firstByName[T any](blocks []T, name func(T) string) map[string]T {
	out := make(map[string]T, len(blocks))
	for _, b := range blocks {
		if _, ok := out[name(b)]; !ok {
			out[name(b)] = b
		}
	}
	return out
}

// App is the app block called name, or nil.
func (d *Decls) App(name string) *lang.App { return d.apps[name] }

// Stack is the stack block called name, or nil.
func (d *Decls) Stack(name string) *lang.Stack { return d.stacks[name] }

// Class is the class block called name, or nil (a built-in class the
// platform does not override has none).
func (d *Decls) Class(name string) *lang.Class { return d.classes[name] }

// Health is the health block for kind ("group/Kind"), or nil.
func (d *Decls) Health(kind string) *lang.Health { return d.health[kind] }
