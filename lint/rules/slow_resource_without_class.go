package rules

import (
	"fmt"
	"slices"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lint"
)

// SlowResourceWithoutClass reports apps that manage a slow data kind with
// the timeouts of a simple deployment.
var SlowResourceWithoutClass = &lint.Rule{
	Name: "slow-resource-without-class",
	Doc: `app manages a slow data resource with short timeouts

Some custom resources hold data and take many minutes to become healthy:
a CephCluster, a Zalando or CloudNativePG PostgreSQL cluster, a Strimzi
Kafka cluster, a Vault and similar. An app that lists such a kind in
custom_resources but has no slow class runs with the timeouts of a
simple deployment (5m by default), fails while the cluster still
converges, and retries it from the start.

Give the app the class that fits (storage-cluster for Ceph and MinIO,
database-cluster for databases and brokers, vault for Vault), or set
timeouts at least as long as that class's. Apps that already have one of
the slow classes are left to short-timeout-slow-class.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				if slices.Contains(slowClasses, a.Class) {
					continue
				}
				for _, cr := range a.CustomResources {
					want, ok := slowKinds[cr.String()]
					if !ok {
						continue
					}
					cl, ok := builtinClass(prog, want)
					if !ok || (a.Timeouts.Sync >= cl.Sync && a.Timeouts.Health >= cl.Health) {
						continue
					}
					p.Report(lint.Issue{
						Message: fmt.Sprintf("app %q manages %s with %s/%s sync/health timeouts; class %q allows %s/%s", a.Name, cr, ir.FormatDuration(a.Timeouts.Sync), ir.FormatDuration(a.Timeouts.Health), want, ir.FormatDuration(cl.Sync), ir.FormatDuration(cl.Health)),
						Detail:  fmt.Sprintf("A %s takes long to become healthy, so with these timeouts the deploy fails while it still converges. Add class = %q to the app, or set timeouts of at least %s.", cr.Kind, want, ir.FormatDuration(max(cl.Sync, cl.Health))),
						Subject: cr.Range,
					})
					break
				}
			}
		}
		return nil
	},
}
