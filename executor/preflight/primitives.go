package preflight

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/executor/cluster"
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// checkPrimitives finds out whether Argo CD, Argo Workflows and (when the
// platform uses it) Argo Events are installed: their CRDs, their
// namespace, and for Argo Workflows the templates platc build generated.
// "Not installed" is not a failure here; deploy bootstraps, validate and
// teardown decide what it means for them.
func checkPrimitives(ctx context.Context, c *cluster.Client, opts ClusterOptions, r *ClusterReport) {
	p := CheckPrimitives(ctx, c, opts)
	r.ArgoCD, r.Workflows = p.ArgoCD, p.Workflows
	report := func(name string, comp Component) {
		if comp.Installed {
			r.add(name, Info, "%s is installed (namespace %s)", comp.Name, comp.Namespace)
		} else {
			r.add(name, Info, "%s is not installed: %s missing", comp.Name, strings.Join(comp.Missing, ", "))
		}
	}
	report("argocd", r.ArgoCD)
	report("argo-workflows", r.Workflows)
	if opts.Events {
		ev := component(ctx, c, "Argo Events", opts.WorkflowsNamespace,
			[]string{"eventsources.argoproj.io", "sensors.argoproj.io", "eventbus.argoproj.io"}, nil, nil)
		ev.Namespace = ""
		r.Events = &ev
		if ev.Installed {
			report("argo-events", ev)
		} else {
			// The platform's events block needs it; deploy does not
			// bootstrap for it alone, since pushes are not needed to deploy.
			r.add("argo-events", Warn, "Argo Events is not installed (%s missing); the platform's events block will not trigger deploys until it is", strings.Join(ev.Missing, ", "))
		}
	}
}

// Primitives are Argo CD and Argo Workflows as found in the cluster.
type Primitives struct {
	ArgoCD, Workflows Component
}

// CheckPrimitives finds out whether Argo CD and Argo Workflows (with the
// templates opts names) are installed.
func CheckPrimitives(ctx context.Context, c *cluster.Client, opts ClusterOptions) Primitives {
	var r Primitives
	r.ArgoCD = component(ctx, c, "Argo CD", opts.ArgoCDNamespace,
		[]string{"applications.argoproj.io", "appprojects.argoproj.io"}, nil, nil)
	r.Workflows = component(ctx, c, "Argo Workflows", opts.WorkflowsNamespace,
		[]string{"workflows.argoproj.io", "workflowtemplates.argoproj.io", "clusterworkflowtemplates.argoproj.io"},
		opts.Templates, opts.ClusterTemplates)
	return r
}

func component(ctx context.Context, c *cluster.Client, name, ns string, crds, templates, clusterTemplates []string) Component {
	comp := Component{Name: name, Namespace: ns}
	exists := func(get func(context.Context) error) (bool, error) {
		cctx, cancel := c.Call(ctx)
		defer cancel()
		err := get(cctx)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
	note := func(what string, ok bool, err error) {
		switch {
		case err != nil:
			comp.Missing = append(comp.Missing, fmt.Sprintf("%s (cannot tell: %s)", what, c.Explain(err)))
		case !ok:
			comp.Missing = append(comp.Missing, what)
		}
	}
	for _, crd := range crds {
		ok, err := exists(func(ctx context.Context) error {
			_, err := c.Dynamic.Resource(cluster.CRDs).Get(ctx, crd, metav1.GetOptions{})
			return err
		})
		note("CRD "+crd, ok, err)
	}
	ok, err := exists(func(ctx context.Context) error {
		_, err := c.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return err
	})
	note("namespace "+ns, ok, err)
	if len(comp.Missing) == 0 {
		for _, t := range templates {
			ok, err := exists(func(ctx context.Context) error {
				_, err := c.Dynamic.Resource(cluster.WorkflowTemplates).Namespace(ns).Get(ctx, t, metav1.GetOptions{})
				return err
			})
			note("WorkflowTemplate "+ns+"/"+t, ok, err)
		}
		for _, t := range clusterTemplates {
			ok, err := exists(func(ctx context.Context) error {
				_, err := c.Dynamic.Resource(cluster.ClusterWorkflowTemplates).Get(ctx, t, metav1.GetOptions{})
				return err
			})
			note("ClusterWorkflowTemplate "+t, ok, err)
		}
	}
	comp.Installed = len(comp.Missing) == 0
	return comp
}
