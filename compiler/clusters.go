package compiler

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// Destination clusters. An environment declares the clusters besides
// the in-cluster one that its apps may deploy to, each by the name Argo
// CD knows it by and, optionally, its API server; an app names one by
// either. Declaring them lets the compiler refuse a typo where it is
// written, lets the AppProjects allow exactly the clusters used, and
// lets Phase 0 check that Argo CD knows each of them before a deploy
// waits on an Application that can never sync.

var (
	gClusterName = &grammar{
		what: "cluster name", max: 253,
		check: matcher(regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`), "is not a cluster name platc accepts"),
		hint:  "Name the cluster as Argo CD knows it (argocd cluster list), with letters, digits, '-', '_' and '.', such as \"edge-eu\".",
	}
	gClusterServer = &grammar{
		what: "cluster server", max: 2048,
		check: func(s string) string {
			if why := urlCheck("https")(s); why != "" {
				return why
			}
			u, _ := url.Parse(s)
			if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
				return "holds credentials, a query or a fragment"
			}
			return ""
		},
		hint: "Write the cluster's API server URL as Argo CD knows it (argocd cluster list), such as \"https://edge-eu.example.com:6443\".",
	}
)

// clusters lowers the chosen environment's cluster blocks into
// c.prog.Env.Clusters. Their values are literals, evaluated by e.
func (c *compilation) clusters(env *lang.Environment, e *evaluator) {
	if env == nil {
		return
	}
	byName := map[string]hcl.Range{}
	byServer := map[string]hcl.Range{}
	for _, lc := range env.Clusters {
		if why := gClusterName.validate(lc.Name); why != "" {
			c.diags = append(c.diags, gClusterName.diagnose(lc.Name, why, lc.NameRange))
			continue
		}
		if lc.Name == ir.InClusterName {
			c.diags = append(c.diags, diag.Error(lc.NameRange, "Reserved cluster name",
				fmt.Sprintf("Argo CD always knows the cluster it runs in as %q (%s), and apps deploy there unless they say otherwise, so it is not declared. Remove this block, or give the other cluster its own name.", ir.InClusterName, ir.InClusterServer)))
			continue
		}
		if first, ok := byName[lc.Name]; ok {
			c.diags = append(c.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Duplicate cluster",
				Detail:  fmt.Sprintf("Environment %q already declares cluster %q at %s. Remove one of the blocks.", env.Name, lc.Name, diag.At(first)),
				Subject: lc.NameRange.Ptr(),
			})
			continue
		}
		byName[lc.Name] = lc.NameRange
		cl := &ir.Cluster{Name: lc.Name, DeclRange: lc.DeclRange}
		if s, ok := e.typed(lc.Server, gClusterServer); ok {
			key := strings.TrimSuffix(s, "/")
			r := lc.Server.Expr.Range()
			switch first, dup := byServer[key]; {
			case key == ir.InClusterServer:
				c.diags = append(c.diags, diag.Error(r, "Reserved cluster server",
					fmt.Sprintf("%s is the cluster Argo CD runs in, which apps deploy to unless they say otherwise. Remove this block.", ir.InClusterServer)))
			case dup:
				c.diags = append(c.diags, diag.Error(r, "Duplicate cluster server",
					fmt.Sprintf("Another cluster of environment %q has the server %s, at %s; Argo CD knows one cluster per server. Remove one of the blocks.", env.Name, s, diag.At(first))))
			default:
				byServer[key] = r
				cl.Server = s
			}
		}
		c.prog.Env.Clusters = append(c.prog.Env.Clusters, cl)
	}
	slices.SortFunc(c.prog.Env.Clusters, func(a, b *ir.Cluster) int { return strings.Compare(a.Name, b.Name) })
}

// destination resolves the app's cluster attribute against the
// environment's clusters.
func (c *compilation) destination(la *lang.App, a *ir.App) {
	a.Destination = ir.Destination{Server: ir.InClusterServer}
	s, ok := c.eval.str(la.Cluster)
	if !ok {
		return
	}
	r := la.Cluster.Expr.Range()
	byServer := strings.Contains(s, "://")
	if byServer {
		if strings.TrimSuffix(s, "/") == ir.InClusterServer {
			return
		}
	} else if s == ir.InClusterName {
		a.Destination = ir.Destination{Name: ir.InClusterName}
		return
	}
	for _, cl := range c.prog.Env.Clusters {
		switch {
		case byServer && cl.Server != "" && strings.TrimSuffix(cl.Server, "/") == strings.TrimSuffix(s, "/"):
			a.Destination = ir.Destination{Server: cl.Server, Cluster: cl}
			return
		case !byServer && cl.Name == s:
			a.Destination = ir.Destination{Name: cl.Name, Cluster: cl}
			return
		}
	}
	c.diags = append(c.diags, diag.Error(r, "Unknown cluster", c.unknownCluster(s, byServer)))
}

// unknownCluster explains a cluster the environment does not declare:
// the nearest declared one, where other environments declare it, and
// how to declare it.
func (c *compilation) unknownCluster(s string, byServer bool) string {
	env := c.prog.Env.Name
	known := []string{ir.InClusterName}
	if byServer {
		known = []string{ir.InClusterServer}
	}
	for _, cl := range c.prog.Env.Clusters {
		if !byServer {
			known = append(known, cl.Name)
		} else if cl.Server != "" {
			known = append(known, cl.Server)
		}
	}
	var b strings.Builder
	what := "named"
	if byServer {
		what = "with the server"
	}
	fmt.Fprintf(&b, "Environment %q declares no cluster %s %s.", env, what, quoteShort(s))
	if sug := diag.Suggest(s, known[1:]); sug != "" {
		fmt.Fprintf(&b, " Did you mean %q?", sug)
	}
	fmt.Fprintf(&b, " Its clusters: %s.", strings.Join(known, ", "))
	if !byServer {
		var elsewhere []string
		for _, e := range c.m.Environments {
			for _, cl := range e.Clusters {
				if cl.Name == s && e.Name != env {
					elsewhere = append(elsewhere, fmt.Sprintf("%q (%s)", e.Name, diag.At(cl.NameRange)))
				}
			}
		}
		if len(elsewhere) > 0 {
			fmt.Fprintf(&b, " Environment %s declares it.", strings.Join(elsewhere, ", "))
		}
	}
	if len(c.m.Environments) == 0 {
		fmt.Fprintf(&b, " The platform declares no environment blocks; declare environment %q { cluster \"NAME\" { server = \"https://...\" } } for the cluster Argo CD knows, or remove cluster to deploy to the one Argo CD runs in.", DefaultEnv)
	} else {
		fmt.Fprintf(&b, " Declare it in environment %q as cluster \"NAME\" { server = \"https://...\" }, with the name and server Argo CD knows it by (argocd cluster list), or remove cluster to deploy to the one Argo CD runs in.", env)
	}
	return b.String()
}

// ClusterNameProblem returns why s cannot name a cluster block, or "".
// platc import asks before it writes one.
func ClusterNameProblem(s string) string {
	if s == ir.InClusterName {
		return "is the cluster Argo CD runs in"
	}
	return gClusterName.validate(s)
}

// ClusterServerProblem returns why s cannot be a cluster block's server,
// or "".
func ClusterServerProblem(s string) string { return gClusterServer.validate(s) }
