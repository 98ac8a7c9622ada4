package executor

import (
	"bytes"
	"context"
	"errors"
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
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
)

// What the bootstrap installs that platc compares (issue 20). Every
// deploy compares them before the workflow starts and, when the
// bootstrap's Helm releases are there, reconciles a difference by
// running the generated bootstrap again (reconcile.go).
const (
	DriftRelease = "release" // a Helm release: chart, chart version, status or values
	DriftHealth  = "health"  // a health customization in argocd-cm
	DriftRBAC    = "rbac"    // the automation account (argocd-cm) or its RBAC policy (argocd-rbac-cm)
	DriftProject = "project" // an AppProject, or a repository it must allow
	DriftRoot    = "root"    // the root Application's source
	DriftToken   = "token"   // the automation token Secret
	// DriftCredential: a Secret the bootstrap writes from a declared
	// credential is missing or not labelled as platc labels it.
	DriftCredential = "credential"
)

// driftOrder is the order the kinds are reported in: what owns, then
// what is owned.
var driftOrder = []string{DriftRelease, DriftHealth, DriftRBAC, DriftProject, DriftRoot, DriftToken, DriftCredential}

// argocdCM is the ConfigMap Argo CD reads its settings from, and
// argocdRBACCM its RBAC policy.
const (
	argocdCM     = "argocd-cm"
	argocdRBACCM = "argocd-rbac-cm"
)

// BootstrapFix is how to bring what the bootstrap installed in line by
// hand: the generated bootstrap is idempotent (Helm upgrades), so running
// it again upgrades every release whose chart or values differ. platc
// deploy does the same itself.
const BootstrapFix = "cd generated/<env>/ansible && ansible-playbook site.yml"

// Drift is one difference between what the bootstrap installed and what
// the platform compiles to now.
type Drift struct {
	What string `json:"what"` // DriftRelease, DriftHealth, DriftRBAC, DriftProject, DriftRoot, DriftToken or DriftCredential
	// Object is the release's name (release), the kind as <group>/<Kind>
	// (health), the ConfigMap (rbac), the AppProject's name (project),
	// the root Application's name (root) or the Secret (token,
	// credential).
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

// driftCheck is what comparing the bootstrap's objects found.
type driftCheck struct {
	Drift []Drift
	// Errs are comparisons that could not be made (other than absent
	// objects and forbidden optional reads).
	Errs []error
	// NotRead names what the kubeconfig's user may not read beyond the
	// permissions Phase 0 asks for, and so was not compared.
	NotRead []string
	// Owned: the argo-cd Helm release the bootstrap installs is there,
	// with platc's automation account in its values, so platc's bootstrap
	// installed this Argo CD and may reconcile it.
	// Without it (Argo CD installed some other way, or the releases not
	// readable) nothing is reconciled: a helm install over objects it
	// does not own would fail.
	Owned bool
	// OwnedUnknown: the Secrets of the argo-cd release may not be read,
	// so whether the bootstrap installed this Argo CD is not known. Only
	// a kubeconfig allowed to reconcile can tell, and it may read them.
	OwnedUnknown bool
}

// bootstrapDrift reads what the bootstrap installed and compares it
// with what p compiles to: the Helm releases, argocd-cm's health
// customizations and automation account, argocd-rbac-cm's policy, the
// AppProjects, the root Application and the token Secret. scope are the
// apps the action is about: only they make project drift blocking. b is
// the run's emitted objects for p (the releases are read from it). An
// object that cannot be read (other than absent) leaves its comparison
// out, as an error or, for the reads Phase 0 does not ask permission for,
// in NotRead.
func bootstrapDrift(ctx context.Context, c *cluster.Client, b *built, scope []*ir.App) driftCheck {
	p := b.p
	ns := p.Platform.ArgoCD.Namespace
	var res driftCheck
	res.releases(ctx, c, b)

	cctx, cancel := c.Call(ctx)
	cm, err := c.Kube.CoreV1().ConfigMaps(ns).Get(cctx, argocdCM, metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		res.Drift = append(res.Drift, healthDrift(p, nil)...)
		res.Drift = append(res.Drift, settingsDrift(p, "cm", argocdCM, nil)...)
	case err != nil:
		res.Errs = append(res.Errs, fmt.Errorf("reading ConfigMap %s/%s: %s", ns, argocdCM, c.Explain(err)))
	default:
		res.Drift = append(res.Drift, healthDrift(p, cm)...)
		res.Drift = append(res.Drift, settingsDrift(p, "cm", argocdCM, cm.Data)...)
	}

	cctx, cancel = c.Call(ctx)
	rbac, err := c.Kube.CoreV1().ConfigMaps(ns).Get(cctx, argocdRBACCM, metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		res.Drift = append(res.Drift, settingsDrift(p, "rbac", argocdRBACCM, nil)...)
	case apierrors.IsForbidden(err):
		res.NotRead = append(res.NotRead, fmt.Sprintf("ConfigMap %s/%s", ns, argocdRBACCM))
	case err != nil:
		res.Errs = append(res.Errs, fmt.Errorf("reading ConfigMap %s/%s: %s", ns, argocdRBACCM, c.Explain(err)))
	default:
		res.Drift = append(res.Drift, settingsDrift(p, "rbac", argocdRBACCM, rbac.Data)...)
	}

	cctx, cancel = c.Call(ctx)
	list, err := c.Dynamic.Resource(cluster.AppProjects).Namespace(ns).List(cctx, metav1.ListOptions{})
	cancel()
	if err != nil && !isNoKind(err) {
		res.Errs = append(res.Errs, fmt.Errorf("reading the AppProjects in namespace %s: %s", ns, c.Explain(err)))
	} else {
		live := map[string][]string{}
		if list != nil {
			for _, u := range list.Items {
				repos, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "sourceRepos")
				live[u.GetName()] = orEmpty(repos)
			}
		}
		res.Drift = append(res.Drift, projectDrift(p, scope, live)...)
	}

	cctx, cancel = c.Call(ctx)
	root, err := c.Dynamic.Resource(cluster.Applications).Namespace(ns).Get(cctx, argocd.RootApp, metav1.GetOptions{})
	cancel()
	switch {
	case isNoKind(err):
		res.Drift = append(res.Drift, rootDrift(p, nil)...)
	case err != nil:
		res.Errs = append(res.Errs, fmt.Errorf("reading Application %s/%s: %s", ns, argocd.RootApp, c.Explain(err)))
	default:
		res.Drift = append(res.Drift, rootDrift(p, root)...)
	}

	ts, wns := p.Platform.ArgoCD.TokenSecret, p.Platform.Workflows.Namespace
	cctx, cancel = c.Call(ctx)
	tok, err := c.Kube.CoreV1().Secrets(wns).Get(cctx, ts.Name, metav1.GetOptions{})
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		res.Drift = append(res.Drift, tokenDrift(wns, ts.Name, ts.Key, nil)...)
	case apierrors.IsForbidden(err):
		res.NotRead = append(res.NotRead, fmt.Sprintf("Secret %s/%s", wns, ts.Name))
	case err != nil:
		res.Errs = append(res.Errs, fmt.Errorf("reading Secret %s/%s: %s", wns, ts.Name, c.Explain(err)))
	default:
		res.Drift = append(res.Drift, tokenDrift(wns, ts.Name, ts.Key, tok.Data)...)
	}
	res.credentials(ctx, c, p)
	return res
}

// credentials checks that each Secret the bootstrap writes from the
// platform's credentials exists with its labels: a credential added to
// a running platform has none until the bootstrap runs again, and Argo
// CD would be refused by the repository. Only the Secret's metadata is
// compared; its data comes from files only the bootstrap reads. Read by
// name, and as for the token, a Secret the user may not read is listed
// as not read rather than asked for in Phase 0.
func (res *driftCheck) credentials(ctx context.Context, c *cluster.Client, p *ir.Program) {
	for _, cr := range p.Platform.Credentials {
		for _, ns := range cr.Namespaces {
			cctx, cancel := c.Call(ctx)
			sec, err := c.Kube.CoreV1().Secrets(ns).Get(cctx, cr.SecretName, metav1.GetOptions{})
			cancel()
			switch {
			case apierrors.IsForbidden(err):
				res.NotRead = append(res.NotRead, fmt.Sprintf("Secret %s/%s", ns, cr.SecretName))
			case err != nil && !apierrors.IsNotFound(err):
				res.Errs = append(res.Errs, fmt.Errorf("reading Secret %s/%s: %s", ns, cr.SecretName, c.Explain(err)))
			default:
				var labels map[string]string
				if err == nil {
					labels = sec.Labels
				}
				res.Drift = append(res.Drift, credentialDrift(cr, ns, err == nil, labels)...)
			}
		}
	}
}

// credentialDrift compares one credential's Secret in ns with what the
// bootstrap writes: it exists, and a repository credential's carries the
// label Argo CD finds it by.
func credentialDrift(cr ir.Credential, ns string, exists bool, labels map[string]string) []Drift {
	use := "the apps in " + ns + " cannot use it"
	want := ""
	if cr.Type.IsRepository() {
		use = "Argo CD cannot read " + cr.URL
		want = "repository"
		if cr.Template {
			want, use = "repo-creds", "Argo CD has no credentials for the repositories under "+cr.URL
		}
	}
	switch {
	case !exists:
		return []Drift{{What: DriftCredential, Object: cr.SecretName, Message: fmt.Sprintf("the Secret %s/%s of credential %s does not exist; %s", ns, cr.SecretName, cr.Name, use)}}
	case want != "" && labels["argocd.argoproj.io/secret-type"] != want:
		return []Drift{{What: DriftCredential, Object: cr.SecretName, Message: fmt.Sprintf("the Secret %s/%s of credential %s is not labelled argocd.argoproj.io/secret-type=%s; %s", ns, cr.SecretName, cr.Name, want, use)}}
	}
	return nil
}

// releases compares the bootstrap's Helm releases (emit/ansible's
// Releases) with the cluster's. Absent releases are drift only when the
// argo-cd release is there: otherwise this Argo CD is not the
// bootstrap's, and the releases are not platc's to compare.
func (res *driftCheck) releases(ctx context.Context, c *cluster.Client, b *built) {
	p := b.p
	rels, err := b.Releases()
	if err != nil {
		res.Errs = append(res.Errs, fmt.Errorf("the bootstrap's Helm releases: %w (this is a platc bug)", err))
		return
	}
	files, err := argocd.Values{}.Emit(p)
	if err != nil {
		res.Errs = append(res.Errs, fmt.Errorf("argocd/values.yaml: %w (this is a platc bug)", err))
		return
	}
	type found struct {
		want ansible.Release
		have *helmRelease
	}
	var seen []found
	forbidden := map[string]bool{}
	for _, rel := range rels {
		have, err := readHelmRelease(ctx, c, rel.Namespace, rel.Name)
		switch {
		case errors.Is(err, errReleaseForbidden):
			forbidden[rel.Namespace] = true
			res.OwnedUnknown = res.OwnedUnknown || rel.Role == "argocd"
			continue
		case err != nil:
			res.Errs = append(res.Errs, err)
			continue
		}
		if rel.Role == "argocd" && have != nil {
			res.Owned = platcsRelease(p, have)
		}
		seen = append(seen, found{rel, have})
	}
	if len(forbidden) > 0 {
		nss := slices.Sorted(maps.Keys(forbidden))
		res.NotRead = append(res.NotRead, fmt.Sprintf("the Helm releases' Secrets (in %s %s)", english.Plural(len(nss), "namespace"), english.List(nss)))
	}
	if !res.Owned {
		return
	}
	for _, f := range seen {
		rel := f.want
		what := fmt.Sprintf("Helm release %s/%s (chart %s)", rel.Namespace, rel.Name, rel.Chart)
		if f.have == nil {
			res.Drift = append(res.Drift, Drift{What: DriftRelease, Object: rel.Name,
				Message: fmt.Sprintf("%s is not installed; the platform installs chart %s %s", what, rel.Chart, rel.Version)})
			continue
		}
		values, err := wantValues(rel, files)
		if err != nil {
			res.Errs = append(res.Errs, err)
			continue
		}
		if diffs := compareRelease(rel, values, f.have); len(diffs) > 0 {
			res.Drift = append(res.Drift, Drift{What: DriftRelease, Object: rel.Name,
				Message: fmt.Sprintf("%s, revision %d: %s", what, f.have.Version, strings.Join(diffs, "; "))})
		}
	}
}

// platcsRelease tells the argo-cd release platc's bootstrap installed from
// one installed some other way under the same, common name: only platc's
// values create its automation account. Reconciling someone else's
// release would replace their values with platc's (the roles upgrade with
// --reset-values).
func platcsRelease(p *ir.Program, have *helmRelease) bool {
	configs, _ := argocd.ChartValues(p)["configs"].(map[string]any)
	want, _ := configs["cm"].(map[string]any)
	hc, _ := have.Config["configs"].(map[string]any)
	live, _ := hc["cm"].(map[string]any)
	for k, v := range want {
		if strings.HasPrefix(k, "accounts.") && live[k] == v {
			return true
		}
	}
	return false
}

// settingsDrift compares the entries of the argo-cd chart's configs.<part>
// that are not health customizations (the automation account in cm, the
// policy in rbac) with the ConfigMap that part becomes; live nil means
// it does not exist. Without the account or its policy, every workflow
// step that calls Argo CD is denied.
func settingsDrift(p *ir.Program, part, name string, live map[string]string) []Drift {
	configs, _ := argocd.ChartValues(p)["configs"].(map[string]any)
	want, _ := configs[part].(map[string]any)
	var diffs []string
	for _, k := range settingKeys(p, want) {
		w, _ := want[k].(string)
		have, ok := live[k]
		switch {
		case live == nil:
			return []Drift{{What: DriftRBAC, Object: name, Message: fmt.Sprintf("ConfigMap %s does not exist, so Argo CD has no %s", name, english.List(settingKeys(p, want)))}}
		case !ok:
			diffs = append(diffs, k+" missing")
		case strings.TrimRight(have, " \n") != strings.TrimRight(w, " \n"):
			diffs = append(diffs, k+" different")
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	return []Drift{{What: DriftRBAC, Object: name, Message: fmt.Sprintf("ConfigMap %s: %s", name, strings.Join(diffs, ", "))}}
}

// settingKeys are the keys of m that settingsDrift checks: not the
// health customizations (healthDrift's), nor the reconciliation settings,
// which no step needs to work (the release's values drift reports them).
func settingKeys(p *ir.Program, m map[string]any) []string {
	tuning := argocd.ReconcileSettings(p)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if _, ok := tuning[k]; !ok && !strings.HasPrefix(k, "resource.customizations.") {
			out = append(out, k)
		}
	}
	return out
}

// tokenDrift checks the automation token Secret the gitops-handoff role
// creates holds a token under key; data nil means it does not exist.
// The workflows read the token from it to call Argo CD.
func tokenDrift(ns, name, key string, data map[string][]byte) []Drift {
	switch {
	case data == nil:
		return []Drift{{What: DriftToken, Object: name, Message: fmt.Sprintf("the automation token Secret %s/%s does not exist; the workflows cannot call Argo CD", ns, name)}}
	case len(bytes.TrimSpace(data[key])) == 0:
		return []Drift{{What: DriftToken, Object: name, Message: fmt.Sprintf("the automation token Secret %s/%s has no token under key %s", ns, name, key)}}
	}
	return nil
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
// platform, puts every difference in the report and logs one line per
// kind. A comparison that could not be made is a problem of the report,
// not drift.
func (r *run) reportBootstrap(ctx context.Context, scope []*ir.App) driftCheck {
	dc := bootstrapDrift(ctx, r.client, r.emitted(), scope)
	for _, err := range dc.Errs {
		r.log.Warnf(r.phase, "bootstrap-drift", "%s", err)
		r.rep.Problems = append(r.rep.Problems, "could not compare what the bootstrap installed: "+err.Error())
	}
	if len(dc.NotRead) > 0 {
		msg := fmt.Sprintf("not compared, as the kubeconfig's user may not read them: %s", english.List(dc.NotRead))
		r.log.Infof(r.phase, "bootstrap-drift", "%s", msg)
		r.rep.Problems = append(r.rep.Problems, msg)
	}
	r.rep.BootstrapDrift = dc.Drift
	r.rep.Metrics["bootstrap_drift"] = len(dc.Drift)
	for _, line := range driftLines(dc.Drift) {
		r.log.Warnf(r.phase, "bootstrap-drift", "%s", line)
	}
	return dc
}

// recommendDrift says how to bring what the bootstrap installed in line:
// platc deploy reconciles it when this Argo CD is the bootstrap's;
// otherwise whoever installed it must.
func (r *run) recommendDrift(dc driftCheck) {
	if len(dc.Drift) == 0 {
		return
	}
	env := r.cfg.Program.Env.Name
	fix := strings.Replace(BootstrapFix, "<env>", env, 1)
	if dc.OwnedUnknown {
		r.rep.recommend("What the bootstrap installed differs from what the platform compiles to (Bootstrap drift section). The kubeconfig's user may not read the Helm releases, so platc cannot tell whether its bootstrap installed this Argo CD: run platc deploy with a cluster-admin kubeconfig, which compares the releases too and reconciles by running the generated bootstrap again (by hand: 'platc build', then '%s').", fix)
		return
	}
	if !dc.Owned {
		r.rep.recommend("What Argo CD holds differs from what the platform compiles to (Bootstrap drift section), and this Argo CD was not installed by platc's bootstrap (namespace %s has no argo-cd Helm release with platc's automation account in its values), so platc does not reconcile it: whoever installed it must apply what 'platc build' writes to generated/%s/argocd/ (values.yaml's configs.cm and configs.rbac, projects.yaml, root.yaml).",
			r.cfg.Program.Platform.ArgoCD.Namespace, env)
		return
	}
	r.rep.recommend("What the bootstrap installed differs from what the platform compiles to (Bootstrap drift section). platc deploy reconciles it before starting the deploy workflow, by running the generated bootstrap again with a cluster-admin kubeconfig; by hand: 'platc build', then '%s'.", fix)
}

// blockingOf are the drift entries a deploy must not start with.
func blockingOf(drift []Drift) []Drift {
	var out []Drift
	for _, d := range drift {
		if d.Blocking {
			out = append(out, d)
		}
	}
	return out
}

// driftByKind groups drift by kind, in driftOrder.
func driftByKind(drift []Drift) (kinds []string, by map[string][]Drift) {
	by = map[string][]Drift{}
	for _, d := range drift {
		by[d.What] = append(by[d.What], d)
	}
	for _, k := range driftOrder {
		if len(by[k]) > 0 {
			kinds = append(kinds, k)
		}
	}
	return kinds, by
}

// driftLines are one line per kind of drift, saying what differs, for the
// log and the text report.
func driftLines(drift []Drift) []string {
	kinds, by := driftByKind(drift)
	var out []string
	for _, k := range kinds {
		var parts []string
		for _, d := range by[k] {
			s := oneLine(d.Message)
			if d.What == DriftHealth && len(d.Apps) > 0 {
				s += " (used by " + strings.Join(d.Apps, ", ") + ")"
			}
			if d.Blocking {
				s += " [blocks deploy]"
			}
			parts = append(parts, s)
		}
		out = append(out, fmt.Sprintf("%s: %s", k, strings.Join(parts, "; ")))
	}
	return out
}

// driftKindList names the kinds of drift, for a summary: "release,
// health and root".
func driftKindList(drift []Drift) string {
	kinds, _ := driftByKind(drift)
	return english.List(kinds)
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
