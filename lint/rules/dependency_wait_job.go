package rules

import (
	"fmt"

	"github.com/platc/platc/detect"
	"github.com/platc/platc/lint"
)

// DependencyWaitJob reports Jobs whose containers wait for other apps.
var DependencyWaitJob = &lint.Rule{
	Name: "dependency-wait-job",
	Doc: `job waits for another app instead of declaring a dependency

RFC 2.2.3 forbids enforcing cross-app order from inside an app: a Job or
hook that loops until another app's database answers hangs the sync
when that app is down, hides the dependency from the deploy graph, and
runs again on every sync. The deploy DAG already starts an app only
after everything it depends on is healthy.

A Job (or a Pod carrying a hook annotation) is reported when one of its
containers
- uses a wait helper: an image or container name containing wait-for,
  or a command running wait-for-it, wait-for, wait4x, k8s-wait-for or
  dockerize -wait;
- runs kubectl wait or kubectl rollout status, or kubectl get inside a
  shell loop, with -n/--namespace naming another namespace or with
  -A/--all-namespaces;
- polls in a shell loop (until or while) with nc, curl, wget,
  pg_isready, psql, mysqladmin, redis-cli, nslookup or getent against a
  host outside its own namespace (a dotted name that is not NAME.<own
  namespace>, or an IP address), with $VAR hosts and URLs looked up in
  the container's env.
In a PreSync hook every such wait counts, even within the namespace:
none of the app's own resources exist yet when PreSync runs.

Delete the wait and add the app it waits for to depends_on. A migration
that needs the database keeps running as a declared hook; the DAG makes
sure the database is healthy first.`,
	Severity: lint.Error,
	Default:  true,
	Scan:     true,
	Syntax:   true, // reads only the syntax: runs when compilation fails
	Run: func(p *lint.Pass) error {
		for _, o := range p.Manifests.Objects {
			waits := detect.Waits(o, o.Namespace)
			if len(waits) == 0 {
				continue
			}
			// One finding per object: the first wait is enough to show
			// the Job must go, and the others usually repeat it.
			w := waits[0]
			p.Report(lint.Issue{
				Message: fmt.Sprintf("dependency wait in %s: %s", objectName(o), w.Text),
				Detail:  fmt.Sprintf("This container %s. Ordering between apps belongs in the deploy graph (RFC 2.2.3): delete the wait and add the app it waits for to depends_on of the app that owns this %s.", w.Why, o.Kind),
				Subject: w.At,
			})
		}
		return nil
	},
}
