package argocd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/internal/gitops"
)

// Values emits argocd/values.yaml, the argo-cd chart values the bootstrap
// installs Argo CD with.
type Values struct{}

// Name implements emit.Emitter.
func (Values) Name() string { return "argocd-values" }

// Emit implements emit.Emitter.
func (Values) Emit(p *ir.Program) ([]emit.File, error) {
	data, err := emit.YAML(ChartValues(p))
	if err != nil {
		return nil, err
	}
	return []emit.File{{Path: gitops.ValuesFile, Data: data}}, nil
}

// ChartValues are the argo-cd chart values: the health customizations,
// the reconciliation settings, the automation account and the RBAC
// policy for it, in the chart's configs.cm, configs.rbac and
// configs.params.
func ChartValues(p *ir.Program) map[string]any {
	cm := HealthEntries(p)
	for k, v := range ReconcileSettings(p) {
		cm[k] = v
	}
	cm["timeout.reconciliation"] = ir.FormatDuration(p.Platform.ArgoCD.ReconciliationTimeout)
	// An API-key-only account: it can hold tokens but cannot log in to
	// the UI or the CLI with a password.
	cm["accounts."+gitops.Account] = "apiKey"
	configs := map[string]any{
		"cm":   cm,
		"rbac": map[string]any{"policy.csv": Policy(p)},
	}
	if p.Platform.ArgoCD.PlainText {
		// The workflows reach the API server with --plaintext, so it must
		// serve plain HTTP/2.
		configs["params"] = map[string]any{"server.insecure": true}
	}
	return map[string]any{"configs": configs}
}

// HealthEntries are the argocd-cm entries for every health rule platc
// provides (user and built-in rules; Argo CD's own checks need none):
// resource.customizations.health.<group>_<Kind> holds the Lua, and
// resource.customizations.useOpenLibs.<group>_<Kind> is the string "true"
// when the script needs Lua's standard libraries (the API server rejects
// an unquoted boolean in a ConfigMap).
func HealthEntries(p *ir.Program) map[string]any {
	// The same keys as health.yaml, from one place (healthData).
	m := map[string]any{}
	for k, v := range healthData(p) {
		m[k] = v
	}
	return m
}

// Policy is the Argo CD RBAC policy (policy.csv) of the automation
// account, least privilege for what the workflows do (docs/security.md):
// get on the platform's projects (the CLI reads an app's project), get
// (app get, wait, get --refresh), sync (app sync) and delete (app
// delete, teardown) on the projects of the platform's apps, the update
// sub-resource actions teardown uses to apply volume policies
// (gitops.TeardownResourceActions: claims, namespaces, StatefulSets only),
// and update (app set / app patch, which switch automated sync on after a
// deploy) only on the Applications whose HCL asks for automated sync. The
// orchestration project is not covered, so the workflows cannot change
// the root app or the apps that deliver the workflows themselves.
func Policy(p *ir.Program) string {
	var projects, updates []string
	for _, a := range p.Apps {
		if !slices.Contains(projects, a.Project) {
			projects = append(projects, a.Project)
		}
		if a.Sync.Automated {
			updates = append(updates, a.Project+"/"+a.Application)
		}
	}
	slices.Sort(projects)
	slices.Sort(updates)
	var b strings.Builder
	line := func(action, object string) {
		fmt.Fprintf(&b, "p, %s, applications, %s, %s, allow\n", gitops.Role, action, object)
	}
	for _, pr := range projects {
		// The CLI reads an Application's project after the Application
		// itself (argocd app get, wait, sync), and the server checks
		// "projects, get" for that: without it every step is denied.
		fmt.Fprintf(&b, "p, %s, projects, get, %s, allow\n", gitops.Role, pr)
		for _, action := range []string{"get", "sync", "delete"} {
			line(action, pr+"/*")
		}
		for _, action := range gitops.TeardownResourceActions {
			line(action, pr+"/*")
		}
	}
	for _, obj := range updates {
		line("update", obj)
	}
	fmt.Fprintf(&b, "g, %s, %s\n", gitops.Account, gitops.Role)
	return b.String()
}

// ReconcileSettings are the argocd-cm entries that keep the application
// controller from comparing an app again for a change that cannot alter
// its sync or health. They are Argo CD 3's own defaults (its install
// manifests' argocd-cm and the argo-cd chart's values since 8.0; see
// Argo CD's docs/operator-manual/upgrading/2.14-3.0.md, "Ignoring all
// status updates"), written here so that they hold whichever chart
// version installs Argo CD (chart 7.x, Argo CD 2.x, has none of them and
// the feature off) and whatever else sets the chart's values.
//
// Without them every status write to a tracked object requeues its app:
// a Deployment's rollout, an operator's status, and above all each child
// Application of the root, which the root tracks, so each step's refresh,
// sync and status write makes the root diff every app again, a cost
// that grows with the square of the number of apps. An update that
// changes an object's health is still delivered (controller/cache's
// skipResourceUpdate compares the health too), and the periodic
// reconciliation still compares everything; its period,
// timeout.reconciliation, is the platform's (ChartValues).
//
// Beyond Argo CD's defaults, the Application entry also ignores the
// automated sync the deploy steps switch on in each child as it
// converges (gitops.IgnorePointer): the root's ignoreDifferences already
// leave it out of the root's comparison, so the update cannot change the
// root's result, yet each one requeued the root, which diffs every child
// (at 1,000 apps, 5 to 10 s each, once per app). Another app of apps
// that tracks Applications sees a change of that field alone at its
// next periodic reconciliation instead.
// README (Performance) has the measurements.
func ReconcileSettings(p *ir.Program) map[string]any {
	return map[string]any{
		// The default since Argo CD 3.0; 2.x needs it said.
		"resource.ignoreResourceUpdatesEnabled":             "true",
		"resource.customizations.ignoreResourceUpdates.all": "jsonPointers:\n  - /status\n",
		// What platc's steps and Argo CD itself write on a child
		// Application besides its status: the refresh annotation, the
		// operation, the notification and hydration marks.
		"resource.customizations.ignoreResourceUpdates.argoproj.io_Application": "jqPathExpressions:\n" +
			"  - '.metadata.annotations.\"notified.notifications.argoproj.io\"'\n" +
			"  - '.metadata.annotations.\"argocd.argoproj.io/refresh\"'\n" +
			"  - '.metadata.annotations.\"argocd.argoproj.io/hydrate\"'\n" +
			"  - '.operation'\n" +
			"jsonPointers:\n" +
			"  - " + gitops.IgnorePointer(p) + "\n",
	}
}
