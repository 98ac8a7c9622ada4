package executor

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
)

// What the bootstrap installs that platc compares (issue 20): nothing
// reconciles these after day 0 yet, so deploy and validate at least see
// when the cluster no longer matches what the platform compiles to.
const (
	DriftHealth  = "health"  // a health customization in argocd-cm
	DriftProject = "project" // an AppProject, or a repository it must allow
	DriftRoot    = "root"    // the root Application's source
)

// argocdCM is the ConfigMap Argo CD reads its settings from.
const argocdCM = "argocd-cm"

// BootstrapFix is how to bring what the bootstrap installed in line: the
// generated bootstrap is idempotent (Helm upgrades), so running it again
// upgrades the argo-cd release (argocd-cm) and the argocd-apps release
// (the AppProjects and the root).
const BootstrapFix = "cd generated/<env>/ansible && ansible-playbook site.yml"

// Drift is one difference between what the bootstrap installed and what
// the platform compiles to now.
type Drift struct {
	What string `json:"what"` // DriftHealth, DriftProject or DriftRoot
	// Object is the kind as <group>/<Kind> (health), the AppProject's
	// name (project) or the root Application's name (root).
	Object  string `json:"object"`
	Message string `json:"message"`
	// Apps are the apps this drift hurts: those declaring the kind
	// (health), or those in scope Argo CD refuses (project).
	Apps []string `json:"apps,omitempty"`
	// Blocking: deploy refuses to start while it lasts.
	Blocking bool `json:"blocking,omitempty"`
}

// driftPermissions are what reading the bootstrap's objects needs: the
// one ConfigMap by name, the AppProjects, and the root by name.
func driftPermissions(argocdNS string) []preflight.Permission {
	return []preflight.Permission{
		{Verb: "get", Resource: "configmaps", Namespace: argocdNS, Name: argocdCM, Why: "to compare argocd-cm's health customizations with the compiled ones"},
		{Verb: "list", Group: "argoproj.io", Resource: "appprojects", Namespace: argocdNS, Why: "to check the AppProjects allow every repository their apps use"},
		{Verb: "get", Group: "argoproj.io", Resource: "applications", Namespace: argocdNS, Name: argocd.RootApp, Why: "to compare the root Application's revision and path with the platform's"},
	}
}

// bootstrapDrift reads argocd-cm, the AppProjects and the root
// Application and compares them with what p compiles to. scope are the
// apps the action is about: only they make project drift blocking. An
// object that cannot be read (other than absent) is returned as an error
// and leaves its comparison out.
func bootstrapDrift(ctx context.Context, c *cluster.Client, p *ir.Program, scope []*ir.App) ([]Drift, []error) {
	ns := p.Platform.ArgoCD.Namespace
	var out []Drift
	var errs []error

	cctx, cancel := c.Call(ctx)
	cm, err := c.Kube.CoreV1().ConfigMaps(ns).Get(cctx, argocdCM, metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		out = append(out, healthDrift(p, nil)...)
	case err != nil:
		errs = append(errs, fmt.Errorf("reading ConfigMap %s/%s: %s", ns, argocdCM, c.Explain(err)))
	default:
		out = append(out, healthDrift(p, cm)...)
	}

	cctx, cancel = c.Call(ctx)
	list, err := c.Dynamic.Resource(cluster.AppProjects).Namespace(ns).List(cctx, metav1.ListOptions{})
	cancel()
	if err != nil && !isNoKind(err) {
		errs = append(errs, fmt.Errorf("reading the AppProjects in namespace %s: %s", ns, c.Explain(err)))
	} else {
		live := map[string][]string{}
		if list != nil {
			for _, u := range list.Items {
				repos, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "sourceRepos")
				live[u.GetName()] = orEmpty(repos)
			}
		}
		out = append(out, projectDrift(p, scope, live)...)
	}

	cctx, cancel = c.Call(ctx)
	root, err := c.Dynamic.Resource(cluster.Applications).Namespace(ns).Get(cctx, argocd.RootApp, metav1.GetOptions{})
	cancel()
	switch {
	case isNoKind(err):
		out = append(out, rootDrift(p, nil)...)
	case err != nil:
		errs = append(errs, fmt.Errorf("reading Application %s/%s: %s", ns, argocd.RootApp, c.Explain(err)))
	default:
		out = append(out, rootDrift(p, root)...)
	}
	return out, errs
}

// healthDrift compares every argocd-cm key the platform compiles to
// (emit/argocd's HealthEntries, what the argo-cd release was installed
// with) with cm; nil means argocd-cm does not exist. Keys argocd-cm has
// beyond those are left alone: Argo CD or the operator may own them. A
// missing or different rule is blocking: Argo CD would judge that kind
// by another rule (or none), so an app could turn Healthy before its
// resource is ready and its dependents start too early (INV-7).
func healthDrift(p *ir.Program, cm *corev1.ConfigMap) []Drift {
	var live map[string]string
	if cm != nil {
		live = cm.Data
	}
	byKind := compareHealth(argocd.HealthEntries(p), live)
	users := usersOfKinds(p)
	var out []Drift
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		msg := fmt.Sprintf("argocd-cm's health customization for %s: %s", kind, strings.Join(byKind[kind], ", "))
		if cm == nil {
			msg = fmt.Sprintf("ConfigMap %s does not exist, so Argo CD has no health customization for %s", argocdCM, kind)
		}
		out = append(out, Drift{What: DriftHealth, Object: kind, Message: msg, Apps: users[kind], Blocking: true})
	}
	return out
}

// compareHealth lists, per kind (<group>/<Kind>), the parts of its rule
// that live lacks or has differently from want. Trailing blanks are not
// a difference: YAML block scalars may add or drop a final newline.
func compareHealth(want map[string]any, live map[string]string) map[string][]string {
	byKind := map[string][]string{}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		w, _ := want[key].(string)
		kind, part := healthKind(key)
		have, ok := live[key]
		switch {
		case !ok:
			byKind[kind] = append(byKind[kind], part+" missing")
		case strings.TrimRight(have, " \n") != strings.TrimRight(w, " \n"):
			byKind[kind] = append(byKind[kind], part+" different")
		}
	}
	return byKind
}

// healthKind turns an argocd-cm key into the kind it is about, as
// <group>/<Kind> (a core kind: just Kind), and which part of the rule the
// key holds.
func healthKind(key string) (kind, part string) {
	part = "Lua script"
	rest, ok := strings.CutPrefix(key, "resource.customizations.health.")
	if !ok {
		rest, _ = strings.CutPrefix(key, "resource.customizations.useOpenLibs.")
		part = "useOpenLibs"
	}
	if i := strings.LastIndex(rest, "_"); i >= 0 {
		return rest[:i] + "/" + rest[i+1:], part
	}
	return rest, part
}

// usersOfKinds maps each custom resource kind (<group>/<Kind>) to the
// apps that declare it, to say whose health is misjudged.
func usersOfKinds(p *ir.Program) map[string][]string {
	out := map[string][]string{}
	for _, a := range p.Apps {
		for _, cr := range a.CustomResources {
			k := cr.String()
			if !slices.Contains(out[k], a.Name) {
				out[k] = append(out[k], a.Name)
			}
		}
	}
	return out
}

// projectDrift checks each AppProject platc generates (emit/argocd's
// Projects) exists and allows every repository the emitter puts in it;
// live maps the cluster's AppProjects to their sourceRepos. Argo CD
// refuses an Application whose repository its project does not allow, so
// the drift is blocking when an app in scope is one of them.
func projectDrift(p *ir.Program, scope []*ir.App, live map[string][]string) []Drift {
	inScope := map[string]bool{}
	for _, a := range scope {
		inScope[a.Name] = true
	}
	// The apps of each project and repository, as the emitter groups them.
	apps := map[[2]string][]string{}
	for _, a := range p.Apps {
		if !inScope[a.Name] {
			continue
		}
		for _, src := range a.Sources {
			k := [2]string{a.Project, src.RepoURL}
			if !slices.Contains(apps[k], a.Name) {
				apps[k] = append(apps[k], a.Name)
			}
		}
	}
	var out []Drift
	for _, pr := range argocd.Projects(p) {
		name := pr.Metadata.Name
		have, exists := live[name]
		if !exists {
			var users []string
			for _, r := range pr.Spec.SourceRepos {
				users = append(users, apps[[2]string{name, r}]...)
			}
			slices.Sort(users)
			out = append(out, Drift{What: DriftProject, Object: name, Apps: users, Blocking: len(users) > 0,
				Message: fmt.Sprintf("AppProject %s does not exist; Argo CD refuses every Application in it", name)})
			continue
		}
		for _, repo := range pr.Spec.SourceRepos {
			if repoAllowed(have, repo) {
				continue
			}
			users := apps[[2]string{name, repo}]
			msg := fmt.Sprintf("AppProject %s does not allow repository %s", name, repo)
			if len(users) > 0 {
				msg += fmt.Sprintf("; Argo CD refuses %s", english.List(users))
			}
			out = append(out, Drift{What: DriftProject, Object: name, Apps: users, Blocking: len(users) > 0, Message: msg})
		}
	}
	return out
}

// repoAllowed reports whether sourceRepos lets an Application use repo.
// Argo CD matches each entry as a glob; path.Match is the same for the
// entries a project usually holds (exact URLs, "*", a trailing "/*").
func repoAllowed(sourceRepos []string, repo string) bool {
	for _, s := range sourceRepos {
		if s == "*" || s == repo {
			return true
		}
		if ok, _ := path.Match(s, repo); ok {
			return true
		}
	}
	return false
}

// rootDrift compares the root Application's source with the one
// emit/argocd's Root builds (platform.git, or environment.yaml's
// gitRepository and gitRevision); u nil means it does not exist. Not
// blocking: the apps' own Applications say what they deploy, but a moved
// revision or path reaches Argo CD only through the root.
func rootDrift(p *ir.Program, u *unstructured.Unstructured) []Drift {
	want := argocd.Root(p)
	name := want.Metadata.Name
	if u == nil {
		return []Drift{{What: DriftRoot, Object: name, Message: fmt.Sprintf("the root Application %s does not exist, so new and changed Applications in Git do not reach Argo CD", name)}}
	}
	var diffs []string
	for _, f := range []struct{ field, want string }{
		{"repoURL", want.Spec.Source.RepoURL},
		{"path", want.Spec.Source.Path},
		{"targetRevision", want.Spec.Source.TargetRevision},
	} {
		have, _, _ := unstructured.NestedString(u.Object, "spec", "source", f.field)
		if have != f.want {
			diffs = append(diffs, fmt.Sprintf("%s is %q, the platform says %q", f.field, have, f.want))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return []Drift{{What: DriftRoot, Object: name, Message: fmt.Sprintf("the root Application %s follows another source: %s", name, strings.Join(diffs, "; "))}}
}

// reportBootstrap compares what the bootstrap installed with the compiled
// platform, puts every difference in the report and the log, and returns
// the blocking ones. A comparison that could not be made is a problem of
// the report, not drift.
func (r *run) reportBootstrap(ctx context.Context, scope []*ir.App) []Drift {
	drift, errs := bootstrapDrift(ctx, r.client, r.cfg.Program, scope)
	for _, err := range errs {
		r.log.Warnf(r.phase, "bootstrap-drift", "%s", err)
		r.rep.Problems = append(r.rep.Problems, "could not compare what the bootstrap installed: "+err.Error())
	}
	r.rep.BootstrapDrift = drift
	r.rep.Metrics["bootstrap_drift"] = len(drift)
	var blocking []Drift
	for _, d := range drift {
		r.log.Warnf(r.phase, d.Object, "bootstrap drift (%s): %s", d.What, d.Message)
		if d.Blocking {
			blocking = append(blocking, d)
		}
	}
	if len(drift) > 0 {
		env := r.cfg.Program.Env.Name
		r.rep.recommend("What the bootstrap installed differs from what the platform compiles to (Bootstrap drift section); platc does not reconcile it yet. Run the generated bootstrap again with a cluster-admin kubeconfig: 'platc build', then '%s'. It upgrades the argo-cd release (argocd-cm's health customizations) and the argocd-apps release (the AppProjects and the root Application).",
			strings.Replace(BootstrapFix, "<env>", env, 1))
	}
	return blocking
}

// driftKinds names the objects of the drift entries, for a summary.
func driftKinds(drift []Drift) string {
	var health, other []string
	for _, d := range drift {
		if d.What == DriftHealth {
			health = append(health, d.Object)
			continue
		}
		for _, a := range d.Apps {
			other = append(other, fmt.Sprintf("app %s (AppProject %s)", a, d.Object))
		}
	}
	var parts []string
	if len(health) > 0 {
		parts = append(parts, "argocd-cm's health customizations differ from the compiled ones for "+english.List(health))
	}
	if len(other) > 0 {
		parts = append(parts, "Argo CD would refuse "+english.List(other)+", whose repository the project does not allow")
	}
	return strings.Join(parts, "; ")
}
