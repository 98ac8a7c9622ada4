package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/compiler/valid"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// Resource nodes (RFC 5.1): an app declares resource blocks, and another
// app depends on one with app.APP.resource.NAME. The compiler decides
// here, once, what "ready" means for the resource's kind; the workflow's
// wait step only reads that decision.

// argoCDCoreHealth are the kinds of Kubernetes' own API groups whose
// health Argo CD assesses in Go (gitops-engine's pkg/health), with no
// rule in argocd-cm.
var argoCDCoreHealth = map[string]bool{
	"Service": true, "PersistentVolumeClaim": true, "Pod": true,
	"apps/Deployment": true, "apps/StatefulSet": true, "apps/DaemonSet": true, "apps/ReplicaSet": true,
	"batch/Job": true, "networking.k8s.io/Ingress": true, "autoscaling/HorizontalPodAutoscaler": true,
}

// statusless are kinds that have no status for anything to judge: Argo CD
// assesses no health for them, and one is ready as soon as it exists.
// Only kinds whose every object is usable once created are here; a kind
// that is not needs a health rule.
var statusless = map[string]bool{
	"ConfigMap": true, "Secret": true, "ServiceAccount": true,
	"storage.k8s.io/StorageClass":                 true,
	"snapshot.storage.k8s.io/VolumeSnapshotClass": true,
	"networking.k8s.io/IngressClass":              true,
	"scheduling.k8s.io/PriorityClass":             true,
}

// resources lowers an app's resource blocks, sorted by name.
func (c *compilation) resources(la *lang.App, a *ir.App) {
	seen := map[string]hcl.Range{}
	for _, lr := range la.Resources {
		if d := checkName("resource", lr.Name, lr.NameRange); d != nil {
			c.diags = append(c.diags, d)
			continue
		}
		if first, ok := seen[lr.Name]; ok {
			c.diags = append(c.diags, diag.Error(lr.NameRange, "Duplicate resource",
				fmt.Sprintf("app %q already declares a resource %q at %s. Resource names are unique within an app; rename or remove one of them.", la.Name, lr.Name, diag.At(first))))
			continue
		}
		seen[lr.Name] = lr.NameRange
		r := &ir.Resource{Name: lr.Name, App: a, Timeout: a.Timeouts.Health, NameRange: lr.NameRange, DeclRange: lr.DeclRange}
		c.eval.require(lr.Kind, "kind", "resource", lr.DeclRange)
		c.eval.require(lr.ResourceName, "name", "resource", lr.DeclRange)
		if kind, ok := c.eval.str(lr.Kind); ok {
			r.Group, r.Kind = c.resourceKind(kind, lr.Kind.Expr.Range())
		}
		r.ResourceName, _ = c.eval.typed(lr.ResourceName, gObjectName.as("resource name"))
		r.Namespace, _ = c.eval.typed(lr.Namespace, gNamespace)
		if r.Kind != "" {
			r.Wait = c.resourceWait(r, lr.Kind.Expr.Range())
		}
		a.Resources = append(a.Resources, r)
	}
	slices.SortFunc(a.Resources, func(x, y *ir.Resource) int { return strings.Compare(x.Name, y.Name) })
}

// resourceKind splits "GROUP/Kind" or a core group's bare "Kind",
// reporting anything else.
func (c *compilation) resourceKind(kind string, r hcl.Range) (group, name string) {
	if !strings.Contains(kind, "/") {
		if kindName.MatchString(kind) {
			return "", kind
		}
	} else if group, name, _ := strings.Cut(kind, "/"); valid.DNSSubdomain(group) && kindName.MatchString(name) {
		return group, name
	}
	c.diags = append(c.diags, diag.Error(r, "Invalid resource kind",
		fmt.Sprintf("%q is not a kind: write \"GROUP/Kind\" with the API group and no version, such as \"storage.k8s.io/StorageClass\" or \"apiextensions.k8s.io/CustomResourceDefinition\", or the bare Kind for the core group, such as \"ConfigMap\".", kind)))
	return "", ""
}

// resourceWait decides what a wait for r waits for, and records the
// health rule in force for its kind (INV-7: nothing counts as ready
// without something that decides it).
func (c *compilation) resourceWait(r *ir.Resource, at hcl.Range) ir.ResourceWait {
	key := r.KindKey()
	_, userRule := c.health[key]
	switch {
	case userRule && r.Group != "":
		c.addHealth(r.Group, r.Kind)
		return ir.WaitHealthy
	case argoCDCoreHealth[key]:
		return ir.WaitHealthy
	case statusless[key]:
		return ir.WaitExists
	case r.Group != "" && c.addHealth(r.Group, r.Kind):
		return ir.WaitHealthy
	}
	c.diags = append(c.diags, diag.Error(at, "Resource without a health rule",
		fmt.Sprintf("Nothing decides when a resource of kind %s is healthy: neither this platform, platc's built-in library nor Argo CD has a health check for it, so a wait for resource %q could not tell ready from not ready. Add a health %q block with healthy and degraded expressions (see docs/health.md).", key, r.Name, key)))
	return ""
}

// resourceDeps resolves every app.X.resource.R reference once all apps
// are lowered, and checks that no wait step's task name is an app's.
func (c *compilation) resourceDeps(byIndex []*ir.App) {
	s := c.s
	for i, refs := range s.resRefs {
		a := byIndex[i]
		if a == nil {
			continue
		}
		for _, ref := range refs {
			provider := byIndex[s.appByName[ref.Name]]
			k := slices.IndexFunc(provider.Resources, func(r *ir.Resource) bool { return r.Name == ref.Resource })
			if k < 0 {
				c.diags = append(c.diags, c.unknownResource(ref, provider))
				continue
			}
			r := provider.Resources[k]
			if slices.ContainsFunc(a.ResourceDeps, func(d ir.ResourceDep) bool { return d.Resource == r }) {
				continue
			}
			a.ResourceDeps = append(a.ResourceDeps, ir.ResourceDep{Resource: r, Range: ref.Range})
		}
		slices.SortFunc(a.ResourceDeps, func(x, y ir.ResourceDep) int {
			if d := x.Resource.App.Index - y.Resource.App.Index; d != 0 {
				return d
			}
			return strings.Compare(x.Resource.Name, y.Resource.Name)
		})
	}
	// A wait step is a task beside the apps' tasks in the DAG.
	for _, a := range byIndex {
		if a == nil {
			continue
		}
		for _, r := range a.Resources {
			if j, ok := s.appByName[r.TaskName()]; ok {
				c.diags = append(c.diags, diag.Error(s.apps[j].NameRange, "App name taken by a resource wait",
					fmt.Sprintf("The workflow's wait for %s is the task %q, which is this app's name too. Rename the app or the resource.", r.Ref(), r.TaskName())))
			}
		}
	}
}

func (c *compilation) unknownResource(ref lang.Ref, provider *ir.App) *hcl.Diagnostic {
	if len(provider.Resources) == 0 {
		return diag.Error(ref.Range, "Reference to undeclared resource",
			fmt.Sprintf("app %q declares no resource blocks. Declare the resource in app %q, such as resource %q { kind = \"storage.k8s.io/StorageClass\" name = \"...\" }, or depend on app.%s as a whole.", provider.Name, provider.Name, ref.Resource, provider.Name))
	}
	names := make([]string, len(provider.Resources))
	for k, r := range provider.Resources {
		names[k] = r.Name
	}
	detail := fmt.Sprintf("app %q declares no resource %q.", provider.Name, ref.Resource)
	if sug := diag.NewSuggester(names, 1).Suggest(ref.Resource); sug != "" {
		detail += fmt.Sprintf(" Did you mean app.%s.resource.%s?", provider.Name, sug)
	} else {
		detail += fmt.Sprintf(" It declares %s.", strings.Join(names, ", "))
	}
	return diag.Error(ref.Range, "Reference to undeclared resource", detail)
}
