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
	d := &Decls{apps: map[string]*lang.App{}, stacks: map[string]*lang.Stack{}, classes: map[string]*lang.Class{}, health: map[string]*lang.Health{}}
	if m == nil {
		return d
	}
	for _, a := range m.Apps {
		if _, ok := d.apps[a.Name]; !ok {
			d.apps[a.Name] = a
		}
	}
	for _, s := range m.Stacks {
		if _, ok := d.stacks[s.Name]; !ok {
			d.stacks[s.Name] = s
		}
	}
	for _, c := range m.Classes {
		if _, ok := d.classes[c.Name]; !ok {
			d.classes[c.Name] = c
		}
	}
	for _, h := range m.Health {
		if _, ok := d.health[h.Kind]; !ok {
			d.health[h.Kind] = h
		}
	}
	return d
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
