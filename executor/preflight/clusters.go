package preflight

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/internal/english"
)

// ClusterSecretSelector selects Argo CD's cluster Secrets: each one is a
// cluster Argo CD may deploy to, its name and server in data.
const ClusterSecretSelector = "argocd.argoproj.io/secret-type=cluster"

// Destination is a declared cluster, other than the one Argo CD runs
// in, that apps in scope deploy to.
type Destination struct {
	// Name is the name Argo CD knows it by; Server its API server, ""
	// when the platform declares it by name only.
	Name, Server string
	// Apps are the apps that deploy there, for the message.
	Apps []string
}

// checkDestinations makes sure Argo CD knows every cluster the apps in
// scope deploy to, as their environment declares it: an Application for
// a cluster Argo CD does not know never syncs, and the deploy would
// only find out when its step times out; a teardown would wait forever
// on the Application's resources finalizer; validate would only see
// apps that are not Healthy. The cluster Argo CD runs in is always known
// and never asked about.
func checkDestinations(ctx context.Context, c *cluster.Client, opts ClusterOptions, r *ClusterReport) {
	if len(opts.Destinations) == 0 {
		return
	}
	if !r.ArgoCD.Installed {
		r.add("destination-clusters", Warn, "Argo CD is not installed, so it does not know the clusters apps deploy to yet: %s; register them (argocd cluster add, or a cluster Secret) after the bootstrap, before the deploy reaches those apps",
			destinationList(opts.Destinations))
		return
	}
	cctx, cancel := c.Call(ctx)
	list, err := c.Kube.CoreV1().Secrets(opts.ArgoCDNamespace).List(cctx, metav1.ListOptions{LabelSelector: ClusterSecretSelector})
	cancel()
	if err != nil {
		r.add("destination-clusters", Fail, "cannot list Argo CD's cluster Secrets in namespace %s to find the clusters apps deploy to: %s", opts.ArgoCDNamespace, c.Explain(err))
		return
	}
	// Only the name and server of each Secret are read; its credentials
	// are never kept or printed.
	servers := map[string]string{} // name -> server
	for _, s := range list.Items {
		name := string(s.Data["name"])
		if name == "" {
			continue
		}
		servers[name] = strings.TrimSuffix(string(s.Data["server"]), "/")
	}
	var problems []string
	for _, d := range opts.Destinations {
		server, known := servers[d.Name]
		switch {
		case !known:
			problems = append(problems, fmt.Sprintf("Argo CD knows no cluster named %q (apps %s)", d.Name, strings.Join(d.Apps, ", ")))
		case d.Server != "" && server != strings.TrimSuffix(d.Server, "/"):
			problems = append(problems, fmt.Sprintf("Argo CD's cluster %q has the server %s, and the platform declares %s (apps %s)", d.Name, server, d.Server, strings.Join(d.Apps, ", ")))
		}
	}
	if len(problems) > 0 {
		status, need := Fail, ""
		if opts.Advisory {
			status = Warn
		}
		if opts.DestinationsNeed != "" {
			need = " (" + opts.DestinationsNeed + ")"
		}
		r.add("destination-clusters", status, "%s%s; register each cluster with Argo CD under the name and server its environment's cluster block declares (argocd cluster add --name, or a Secret labelled %s in namespace %s), or correct the cluster block",
			strings.Join(problems, "; "), need, ClusterSecretSelector, opts.ArgoCDNamespace)
		return
	}
	n := len(opts.Destinations)
	r.add("destination-clusters", Pass, "Argo CD knows the %s apps deploy to: %s", english.Count(n, "declared cluster"), destinationList(opts.Destinations))
}

func destinationList(ds []Destination) string {
	var names []string
	for _, d := range ds {
		names = append(names, d.Name)
	}
	return strings.Join(names, ", ")
}
