package argocd

import (
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/internal/gitops"
)

// The labels and annotations on the Application of every platform app,
// for the executor: it finds the Applications of apps that have left the
// platform by AppSelector, and deletes them in the order and with the
// teardown settings the annotations recorded when they were deployed.
const (
	LabelApp            = gitops.LabelApp
	AnnotationDependsOn = gitops.AnnotationDependsOn
	AnnotationVolumes   = gitops.AnnotationVolumes
	AnnotationTimeout   = gitops.AnnotationTimeout
)

// AppSelector is the label selector of the Applications platc generates
// for p's apps in p's environment: managed by platc, part of p's
// platform, of p's environment, and carrying LabelApp.
func AppSelector(p *ir.Program) string { return gitops.AppSelector(p) }

// RootApp is the name of the root app-of-apps, and EventsApp of the
// Application that syncs the events objects (the push Sensor).
const (
	RootApp   = gitops.RootApp
	EventsApp = gitops.EventsApp
	AlertsApp = gitops.AlertsApp
)

// Project and Application are the AppProject and Application objects
// the bootstrap installs, as this package builds them.
type (
	Project     = gitops.AppProject
	Application = gitops.Application
)

// Projects are the AppProjects the bootstrap installs for p (projects.yaml),
// so the executor compares the cluster with exactly what is emitted.
func Projects(p *ir.Program) []Project { return gitops.Projects(p) }

// Root is the root Application the bootstrap installs for p (root.yaml).
func Root(p *ir.Program) *Application { return gitops.Root(p) }

// GroupRoots are the names of p's group roots, the app-of-apps between
// the root and the apps' Applications of a platform too large for one
// (argocd.applications_per_root); none for most platforms. Teardown
// stops their automated sync with the root's.
func GroupRoots(p *ir.Program) []string { return gitops.GroupRootNames(p) }

// A GroupRoot is one group root and the apps whose Applications it
// holds, for platc plan.
type GroupRoot struct {
	Name string
	Apps []string
}

// GroupRootLayout is p's group roots with their apps; nil when the root
// holds every Application itself.
func GroupRootLayout(p *ir.Program) []GroupRoot {
	var out []GroupRoot
	for _, g := range gitops.Groups(p) {
		gr := GroupRoot{Name: g.Name}
		for _, a := range g.Apps {
			gr.Apps = append(gr.Apps, a.Name)
		}
		out = append(out, gr)
	}
	return out
}
