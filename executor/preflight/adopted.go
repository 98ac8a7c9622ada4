package preflight

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/internal/english"
)

// Adopted is an app without a source: platc generates no Application for
// it, and the deploy syncs and waits for one that must exist already.
type Adopted struct {
	App, Application string
}

// checkAdopted makes sure the Applications that apps without a source
// adopt exist in Argo CD's namespace before a deploy starts waiting for
// them: a missing one would otherwise fail only when its sync step times
// out. An app of apps that creates Applications is modelled as one app
// whose health covers its children (custom_resources =
// ["argoproj.io/Application"]), not as apps adopting the children.
func checkAdopted(ctx context.Context, c *cluster.Client, opts ClusterOptions, r *ClusterReport) {
	if len(opts.Adopted) == 0 {
		return
	}
	var names []string
	for _, a := range opts.Adopted {
		names = append(names, fmt.Sprintf("%s (app %s)", a.Application, a.App))
	}
	if !r.ArgoCD.Installed {
		// The bootstrap installs Argo CD first; nothing could have created
		// the Applications yet, so this cannot block.
		r.add("adopted-applications", Warn, "Argo CD is not installed, so the Applications adopted by apps without a source do not exist yet: %s; the deploy waits for them after the bootstrap, so create them then, or give each app a source block so platc generates its Application",
			strings.Join(names, ", "))
		return
	}
	cctx, cancel := c.Call(ctx)
	list, err := c.Dynamic.Resource(cluster.Applications).Namespace(opts.ArgoCDNamespace).List(cctx, metav1.ListOptions{})
	cancel()
	if err != nil {
		r.add("adopted-applications", Fail, "cannot list the Applications in namespace %s to find the adopted ones: %s", opts.ArgoCDNamespace, c.Explain(err))
		return
	}
	exists := map[string]bool{}
	for _, a := range list.Items {
		exists[a.GetName()] = true
	}
	var missing []string
	for i, a := range opts.Adopted {
		if !exists[a.Application] {
			missing = append(missing, names[i])
		}
	}
	if len(missing) > 0 {
		r.add("adopted-applications", Fail, "apps without a source adopt existing Applications, but these do not exist in namespace %s: %s; create them, or give each app a source block so platc generates its Application",
			opts.ArgoCDNamespace, strings.Join(missing, ", "))
		return
	}
	n := len(opts.Adopted)
	verb := "exist"
	if n == 1 {
		verb = "exists"
	}
	r.add("adopted-applications", Pass, "the %d %s adopted by apps without a source %s", n, english.Plural(n, "Application"), verb)
}
