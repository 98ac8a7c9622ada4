package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Declared is the dependency graph as the platform's HCL states it, read
// here with HCL's syntax package alone, not with platc's parser or
// compiler: the order checks are the answer key for what platc compiled,
// so they must not take their edges from it.
type Declared struct {
	// Application is each app's Argo CD Application name, by app name.
	Application map[string]string
	// Deps are each app's direct dependencies, by app name: its own
	// depends_on and its stack's, a stack reference meaning every app of
	// that stack (docs/language.md). Sorted, without duplicates.
	Deps map[string][]string
}

// Apps are the app names, sorted.
func (d *Declared) Apps() []string { return slices.Sorted(maps.Keys(d.Application)) }

// ReadDeclared reads the platform at path (a directory of .hcl files, not
// recursively, or one file). It reads only what it needs: app and stack
// blocks, their depends_on and an app's application attribute, which
// must then be a literal (the reader evaluates nothing).
func ReadDeclared(path string) (*Declared, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.hcl")); err != nil {
			return nil, err
		}
	}
	d := &Declared{Application: map[string]string{}, Deps: map[string][]string{}}
	stacks := map[string][]string{} // stack → its apps
	type ref struct{ kind, name string }
	refs := map[string][]ref{} // app → references, own and its stack's
	readRefs := func(b *hclsyntax.Body) ([]ref, error) {
		attr := b.Attributes["depends_on"]
		if attr == nil {
			return nil, nil
		}
		items, diags := hcl.ExprList(attr.Expr)
		if diags.HasErrors() {
			return nil, diags
		}
		var out []ref
		for _, it := range items {
			tr, diags := hcl.AbsTraversalForExpr(it)
			// app.NAME.resource.R waits for a resource of NAME and
			// depends on NAME (docs/language.md, resource): its edge is
			// NAME's.
			if !diags.HasErrors() && len(tr) == 4 && tr.RootName() == "app" {
				if r, ok := tr[2].(hcl.TraverseAttr); ok && r.Name == "resource" {
					tr = tr[:2]
				}
			}
			if diags.HasErrors() || len(tr) != 2 {
				return nil, fmt.Errorf("%s: a depends_on item is not app.NAME, app.NAME.resource.R or stack.NAME", it.Range())
			}
			name, ok := tr[1].(hcl.TraverseAttr)
			if !ok || (tr.RootName() != "app" && tr.RootName() != "stack") {
				return nil, fmt.Errorf("%s: a depends_on item is not app.NAME, app.NAME.resource.R or stack.NAME", it.Range())
			}
			out = append(out, ref{tr.RootName(), name.Name})
		}
		return out, nil
	}
	readApp := func(b *hclsyntax.Block, stack string, stackRefs []ref) error {
		name := b.Labels[0]
		app := name
		if attr := b.Body.Attributes["application"]; attr != nil {
			v, diags := attr.Expr.Value(nil)
			if diags.HasErrors() || !v.IsKnown() || v.IsNull() || !v.Type().Equals(cty.String) {
				return fmt.Errorf("%s: app %s's application is not a literal string; the e2e reader evaluates nothing", attr.SrcRange, name)
			}
			app = v.AsString()
		}
		d.Application[name] = app
		own, err := readRefs(b.Body)
		if err != nil {
			return err
		}
		refs[name] = append(own, stackRefs...)
		if stack != "" {
			stacks[stack] = append(stacks[stack], name)
		}
		return nil
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		file, diags := hclsyntax.ParseConfig(src, f, hcl.InitialPos)
		if diags.HasErrors() {
			return nil, diags
		}
		for _, b := range file.Body.(*hclsyntax.Body).Blocks {
			switch {
			case b.Type == "app" && len(b.Labels) == 1:
				if err := readApp(b, "", nil); err != nil {
					return nil, err
				}
			case b.Type == "stack" && len(b.Labels) == 1:
				stackRefs, err := readRefs(b.Body)
				if err != nil {
					return nil, err
				}
				stacks[b.Labels[0]] = []string{} // a stack may be empty
				for _, inner := range b.Body.Blocks {
					if inner.Type == "app" && len(inner.Labels) == 1 {
						if err := readApp(inner, b.Labels[0], stackRefs); err != nil {
							return nil, err
						}
					}
				}
			}
		}
	}
	for app, rs := range refs {
		var deps []string
		for _, r := range rs {
			switch r.kind {
			case "app":
				if _, ok := d.Application[r.name]; !ok {
					return nil, fmt.Errorf("app %s depends on app %s, which is not declared", app, r.name)
				}
				deps = append(deps, r.name)
			case "stack":
				members, ok := stacks[r.name]
				if !ok {
					return nil, fmt.Errorf("app %s depends on stack %s, which is not declared", app, r.name)
				}
				deps = append(deps, members...)
			}
		}
		// An app named in its own stack's depends_on does not wait for
		// itself; the stack's other apps wait for it.
		deps = slices.DeleteFunc(deps, func(dep string) bool { return dep == app })
		slices.Sort(deps)
		d.Deps[app] = slices.Compact(deps)
	}
	return d, nil
}

// String lists the edges one per line ("dep → app"), for test output.
func (d *Declared) String() string {
	var b strings.Builder
	for _, a := range d.Apps() {
		for _, dep := range d.Deps[a] {
			fmt.Fprintf(&b, "%s → %s\n", dep, a)
		}
	}
	return b.String()
}
