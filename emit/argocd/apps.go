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
	add := func(owner string, name string, obj any) error {
		fp := path.Join(gitops.AppsDir, name+".yaml")
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
	for _, a := range p.Apps {
		if app := gitops.App(p, a); app != nil {
			if err := add("app "+a.Name, a.Name, app); err != nil {
				return nil, err
			}
		}
	}
	if err := add("platc", gitops.WorkflowsApp, gitops.Workflows(p)); err != nil {
		return nil, err
	}
	if ev := gitops.Events(p); ev != nil {
		if err := add("platc", gitops.EventsApp, ev); err != nil {
			return nil, err
		}
	}
	if al := gitops.Alerts(p); al != nil {
		if err := add("platc", gitops.AlertsApp, al); err != nil {
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
