package rules

import (
	"fmt"

	"github.com/platc/platc/lint"
)

// PruneOnStatefulApp reports automated pruning on apps that hold data.
var PruneOnStatefulApp = &lint.Rule{
	Name: "prune-on-stateful-app",
	Doc: `automated sync prunes an app that holds data

With prune = true, Argo CD's automated sync deletes every resource of
the app that is no longer in Git. For an app that holds data (a storage
or database cluster, Vault, or an app managing such a custom resource)
a moved file, a renamed resource or a bad merge then deletes the
CephCluster or the database cluster itself, and with it the data.

Leave prune off for data apps (prune by hand, with argocd app sync
--prune, after reviewing the diff), or protect the data resources with
the argocd.argoproj.io/sync-options: Prune=false annotation and
suppress the finding with that reason.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				if !a.Sync.Automated || !a.Sync.Prune {
					continue
				}
				why, ok := stateful(a)
				la := p.Decls.App(a.Name)
				if !ok || la == nil || la.Sync == nil || la.Sync.Prune == nil {
					continue
				}
				p.Report(lint.Issue{
					Message: fmt.Sprintf("automated sync prunes app %q, which holds data (%s)", a.Name, why),
					Detail:  "A resource that disappears from Git, by mistake or by a rename, is deleted with its data. Set prune = false and prune by hand after reviewing the diff.",
					Subject: la.Sync.Prune.Expr.Range(),
				})
			}
		}
		return nil
	},
}
