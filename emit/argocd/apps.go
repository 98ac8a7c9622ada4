package argocd

import (
	"fmt"
	"path"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/internal/gitops"
)

// Apps emits the Applications, the root app-of-apps and the AppProjects.
type Apps struct{}

// Name implements emit.Emitter.
func (Apps) Name() string { return "argocd-apps" }

// Emit implements emit.Emitter.
func (Apps) Emit(p *ir.Program) ([]emit.File, error) {
	var files []emit.File
	seen := map[string]string{}
	add := func(owner, dir, name string, obj any) error {
		fp := path.Join(dir, name+".yaml")
		if prev, ok := seen[fp]; ok {
			return fmt.Errorf("argocd: %s and %s both want %s; this is a platc bug, the compiler should have refused the name", prev, owner, fp)
		}
		seen[fp] = owner
		data, err := emit.YAML(obj)
		if err != nil {
			return err
		}
		files = append(files, emit.File{Path: fp, Data: data})
		return nil
	}
	// A platform with group roots keeps each app's Application in its
	// group root's directory, and the group roots in the root's.
	dir := map[*ir.App]string{}
	for _, g := range gitops.Groups(p) {
		for _, a := range g.Apps {
			dir[a] = g.Dir
		}
		if err := add("platc", gitops.AppsDir, g.Name, gitops.GroupRoot(p, g)); err != nil {
			return nil, err
		}
	}
	for _, a := range p.Apps {
		if app := gitops.App(p, a); app != nil {
			d := dir[a]
			if d == "" {
				d = gitops.AppsDir
			}
			if err := add("app "+a.Name, d, a.Name, app); err != nil {
				return nil, err
			}
		}
	}
	if err := add("platc", gitops.AppsDir, gitops.WorkflowsApp, gitops.Workflows(p)); err != nil {
		return nil, err
	}
	if ev := gitops.Events(p); ev != nil {
		if err := add("platc", gitops.AppsDir, gitops.EventsApp, ev); err != nil {
			return nil, err
		}
	}
	if al := gitops.Alerts(p); al != nil {
		if err := add("platc", gitops.AppsDir, gitops.AlertsApp, al); err != nil {
			return nil, err
		}
	}
	root, err := emit.YAML(gitops.Root(p))
	if err != nil {
		return nil, err
	}
	files = append(files, emit.File{Path: "argocd/root.yaml", Data: root})
	var projects []any
	for _, pr := range gitops.Projects(p) {
		projects = append(projects, pr)
	}
	data, err := emit.YAML(projects...)
	if err != nil {
		return nil, err
	}
	files = append(files, emit.File{Path: "argocd/projects.yaml", Data: data})
	emit.Sort(files)
	return files, nil
}
