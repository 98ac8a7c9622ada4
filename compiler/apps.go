package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// hookPhases are the Argo CD hook phases a declared hook may use.
var hookPhases = []string{"PreSync", "Sync", "PostSync", "SyncFail", "PreDelete", "PostDelete"}

// hookPurposes are the only purposes RFC 2.2.3 allows hooks for.
var hookPurposes = []string{"migration", "schema", "init"}

// apps lowers every app, in topological order when the graph is sound and
// in declaration order otherwise (so per-app errors are still found when
// the graph is broken).
func (c *compilation) apps() {
	s := c.s
	order := s.order
	if order == nil {
		order = make([]int, len(s.apps))
		for i := range order {
			order[i] = i
		}
	}
	// Each level's settings are evaluated once, not once per app.
	var defaults *partial
	if c.m.Defaults != nil {
		p := c.eval.settings(c.m.Defaults.Settings)
		defaults = &p
	}
	stacks := c.lowerStacks()
	byIndex := make([]*ir.App, len(s.apps))
	used := map[string]bool{}
	for pos, i := range order {
		a := c.lowerApp(s.apps[i], pos, defaults, stacks)
		byIndex[i] = a
		for _, cr := range a.CustomResources {
			c.coverHealth(cr, used)
		}
		c.prog.Apps = append(c.prog.Apps, a)
	}
	c.resourceDeps(byIndex)
	c.finishHealth(used)
	c.uniqueApplications(byIndex)
	if s.order == nil {
		return // the graph is broken: no order, waves or stacks to give
	}
	c.linkApps(order, byIndex)
	for _, ls := range s.stacks {
		c.prog.Stacks = append(c.prog.Stacks, stacks[ls].ir)
	}
	slices.SortFunc(c.prog.Stacks, func(a, b *ir.Stack) int { return strings.Compare(a.Name, b.Name) })
}

// stackInfo is a stack being lowered: its IR, its own settings and the
// class its apps get unless they name one.
type stackInfo struct {
	ir      *ir.Stack
	partial partial
	class   *class
	cname   string
}

// lowerStacks evaluates every stack's settings once and resolves the
// stacks' dependencies on each other, sorted by name.
func (c *compilation) lowerStacks() map[*lang.Stack]*stackInfo {
	s := c.s
	stacks := make(map[*lang.Stack]*stackInfo, len(s.stacks))
	for _, ls := range s.stacks {
		si := &stackInfo{
			ir:      &ir.Stack{Name: ls.Name, Description: c.eval.strOr(ls.Description, ""), NameRange: ls.NameRange, DeclRange: ls.DeclRange},
			partial: c.eval.settings(ls.Settings),
		}
		if ls.Class != nil {
			si.class, si.cname = c.lookupClass(ls.Class)
		}
		stacks[ls] = si
	}
	for _, ls := range s.stacks {
		for _, ref := range ls.DependsOn {
			if dep, ok := s.stackByName[ref.Name]; ok && ref.Kind == lang.RefStack && dep != ls {
				if !slices.Contains(stacks[ls].ir.DependsOn, stacks[dep].ir) {
					stacks[ls].ir.DependsOn = append(stacks[ls].ir.DependsOn, stacks[dep].ir)
				}
			}
		}
		slices.SortFunc(stacks[ls].ir.DependsOn, func(a, b *ir.Stack) int { return strings.Compare(a.Name, b.Name) })
	}
	return stacks
}

// lowerApp is app la at position pos of the order: its class, its stack,
// and every setting resolved by precedence (app > class > stack >
// defaults > built-in), with its own attributes and blocks evaluated.
func (c *compilation) lowerApp(la *lang.App, pos int, defaults *partial, stacks map[*lang.Stack]*stackInfo) *ir.App {
	a := &ir.App{Name: la.Name, Index: pos, NameRange: la.NameRange, DeclRange: la.DeclRange}
	levels := make([]level, 0, 4)
	app := c.eval.settings(la.Settings)
	levels = append(levels, level{ir.FromApp, &app})
	var cl *class
	if la.Class != nil {
		cl, a.Class = c.lookupClass(la.Class)
	}
	var si *stackInfo
	if la.Stack != nil {
		si = stacks[la.Stack]
	}
	if la.Class == nil && si != nil && si.class != nil {
		cl, a.Class = si.class, si.cname
	}
	if cl != nil {
		levels = append(levels, level{ir.FromClass, &cl.partial})
	}
	if si != nil {
		levels = append(levels, level{ir.FromStack, &si.partial})
		a.Stack = si.ir
		si.ir.Apps = append(si.ir.Apps, a)
	}
	levels = append(levels, level{ir.FromDefaults, defaults})
	resolveSettings(a, levels)
	c.appFields(la, a)
	return a
}

// linkApps turns the graph's edges into Deps and Dependents, ordered by
// position, and groups the apps into waves, each sorted by name.
func (c *compilation) linkApps(order []int, byIndex []*ir.App) {
	s := c.s
	for _, i := range order {
		a := byIndex[i]
		for _, e := range s.deps[i] {
			dep := byIndex[e.to]
			a.Deps = append(a.Deps, ir.Dep{App: dep, Range: e.rng, Via: e.via, FromStack: e.fromStack})
			dep.Dependents = append(dep.Dependents, a)
		}
		slices.SortFunc(a.Deps, func(x, y ir.Dep) int { return x.App.Index - y.App.Index })
		a.Wave = s.wave[i]
	}
	for _, a := range c.prog.Apps {
		slices.SortFunc(a.Dependents, func(x, y *ir.App) int { return x.Index - y.Index })
		for len(c.prog.Waves) <= a.Wave {
			c.prog.Waves = append(c.prog.Waves, nil)
		}
		c.prog.Waves[a.Wave] = append(c.prog.Waves[a.Wave], a)
	}
	for _, w := range c.prog.Waves {
		slices.SortFunc(w, func(x, y *ir.App) int { return strings.Compare(x.Name, y.Name) })
	}
}

// appFields evaluates an app's own attributes and blocks.
func (c *compilation) appFields(la *lang.App, a *ir.App) {
	e := c.eval
	a.Namespace = e.typedOr(la.Namespace, gNamespace, "")
	a.Project = e.typedOr(la.Project, gProject, c.prog.Platform.ArgoCD.Project)
	a.Application = e.typedOr(la.Application, gApplication, a.Name)
	c.checkReserved(la, a)
	if la.Source != nil {
		a.Sources = c.sources(la)
		if len(a.Sources) > 0 {
			a.Source = a.Sources[0]
		}
		if !e.present(la.Namespace) {
			c.diags = append(c.diags, diag.Error(attrRange(la.Namespace, la.NameRange), "Missing namespace",
				fmt.Sprintf("app %q has a source, so platc generates its Application, which needs a destination namespace. Add namespace = \"...\" to the app.", la.Name)))
		}
	}
	if sy := la.Sync; sy != nil {
		a.Sync.Automated, _ = e.boolean(sy.Automated)
		a.Sync.SelfHeal, _ = e.boolean(sy.SelfHeal)
		a.Sync.Prune, _ = e.boolean(sy.Prune)
		a.Sync.Options = c.typedList(sy.Options, gSyncOption)
		if (a.Sync.SelfHeal || a.Sync.Prune) && !a.Sync.Automated && e.present(sy.Automated) {
			c.diags = append(c.diags, diag.Error(sy.Automated.Expr.Range(), "Self-heal without automated sync",
				"self_heal and prune only take effect with automated sync. Set automated = true, or remove self_heal and prune."))
		}
		if !e.present(sy.Automated) && (a.Sync.SelfHeal || a.Sync.Prune) {
			a.Sync.Automated = true
		}
		c.syncExtras(sy, a)
	}
	c.applicationFields(la, a)
	c.destination(la, a)
	if cl := a.Destination.Cluster; cl != nil && a.Teardown.Volumes == ir.VolumesSnapshot {
		// The teardown workflow creates VolumeSnapshots with the API of
		// the cluster it runs in, where this app's claims are not.
		c.diags = append(c.diags, diag.Error(la.Cluster.Expr.Range(), "Volume snapshots in another cluster",
			fmt.Sprintf("app %q deploys to cluster %q, and its teardown volume policy (from its %s) is snapshot, but platc's teardown creates VolumeSnapshots in the cluster Argo CD runs in, where the app's claims are not. Set teardown { volumes = \"retain\" } or \"delete\" on the app, and snapshot its volumes in that cluster yourself.", la.Name, cl.Name, a.From.Volumes)))
	}
	c.hooks(la, a)
	c.customResources(la, a)
	c.resources(la, a)
}

// typedList evaluates a as a list of strings of grammar g, reporting each
// element that breaks it at the list.
func (c *compilation) typedList(a *hcl.Attribute, g *grammar) []string {
	list, ok := c.eval.strList(a)
	if !ok {
		return nil
	}
	out := list[:0]
	for _, s := range list {
		if why := g.validate(s); why != "" {
			c.diags = append(c.diags, g.diagnose(s, why, a.Expr.Range()))
			continue
		}
		out = append(out, s)
	}
	return out
}

// reservedApplications are the names of the Applications platc generates
// for itself (emit/internal/gitops): the root app-of-apps and the apps
// that deliver the workflow and event objects. reservedProject is their
// AppProject.
var reservedApplications = []string{"platc-root", "platc-workflows", "platc-events"}

// reservedPrefix begins the names of the group roots a platform of more
// than argocd.applications_per_root Applications gets (platc-root-01...).
const reservedPrefix = "platc-root-"

const reservedProject = "platc-orchestration"

// checkReserved refuses an app whose name, Application or project would
// collide with platc's own objects in Argo CD or in generated/<env>/argocd/apps.
func (c *compilation) checkReserved(la *lang.App, a *ir.App) {
	for _, n := range []struct {
		value, what string
		rng         hcl.Range
	}{
		{a.Name, "app name", la.NameRange},
		{a.Application, "application name", attrRange(la.Application, la.NameRange)},
	} {
		if slices.Contains(reservedApplications, n.value) || strings.HasPrefix(n.value, reservedPrefix) {
			c.diags = append(c.diags, diag.Error(n.rng, "Reserved application name",
				fmt.Sprintf("%q is the name of an Application platc generates for itself (%s, and %s* for the group roots of a large platform). Choose another %s.", n.value, strings.Join(reservedApplications, ", "), reservedPrefix, n.what)))
			return
		}
	}
	if a.Project == reservedProject {
		c.diags = append(c.diags, diag.Error(attrRange(la.Project, la.NameRange), "Reserved project name",
			fmt.Sprintf("%q is the AppProject of platc's own Applications, which the automation account is kept out of. Put the app in another project.", reservedProject)))
	}
}

// attrRange is the range of a's value, or def when a is not set.
func attrRange(a *hcl.Attribute, def hcl.Range) hcl.Range {
	if a == nil {
		return def
	}
	return a.Expr.Range()
}

// sources lowers an app's source blocks. An Application with several
// sources names some of them with ref, so that the value files of the
// others can read files from them ("$values/prod.yaml"); the refs are
// read first, so that a value file may name a source declared after it.
func (c *compilation) sources(la *lang.App) []*ir.Source {
	e := c.eval
	srcs := la.Sources
	if len(srcs) > maxSources {
		c.diags = append(c.diags, diag.Error(srcs[maxSources].DeclRange, "Too many sources",
			fmt.Sprintf("An app may have at most %d source blocks. Split the app, or keep the values files of several charts in one repository.", maxSources)))
		srcs = srcs[:maxSources]
	}
	refs := make([]string, len(srcs))
	declared := map[string]hcl.Range{}
	for i, ls := range srcs {
		ref, ok := e.typed(ls.Ref, gSourceRef)
		if !ok {
			continue
		}
		refs[i] = ref
		if first, dup := declared[ref]; dup {
			c.diags = append(c.diags, diag.Error(ls.Ref.Expr.Range(), "Duplicate source ref",
				fmt.Sprintf("ref %q is already the name of the source at %s. Give each source its own ref.", ref, diag.At(first))))
			continue
		}
		declared[ref] = ls.Ref.Expr.Range()
	}
	out := make([]*ir.Source, 0, len(srcs))
	deploys := false
	for i, ls := range srcs {
		s := c.source(ls, refs[i], declared)
		out = append(out, s)
		if s.Chart != "" || s.Path != "" || refs[i] == "" {
			deploys = true
		}
	}
	c.checkSourcePaths(srcs, out)
	if !deploys {
		c.diags = append(c.diags, diag.Error(la.Source.DeclRange, "No source to deploy",
			fmt.Sprintf("Every source of app %q only names a repository for the others (ref without path or chart), so the Application would deploy nothing. Add path or chart to one of them.", la.Name)))
	}
	return out
}

// checkSourcePaths checks, in a checkout of the platform's repository,
// every path Argo CD resolves in that repository at the platform's
// revision (checkout.go): each Git path is a directory; each values file
// (relative to the source's path, or "$REF/file" from the root of the
// source whose ref is REF) and Helm file_parameter is a file; kustomize
// components are directories and patch files files, relative to the
// source's path; Jsonnet libraries are directories from the root.
func (c *compilation) checkSourcePaths(srcs []*lang.Source, out []*ir.Source) {
	co := c.platformCheckout()
	if co == nil {
		return
	}
	g := c.prog.Platform.Git
	inPlatform := func(s *ir.Source) bool {
		return s.Chart == "" && sameRepo(s.RepoURL, g.RepoURL) && s.TargetRevision == g.Revision
	}
	for i, s := range out {
		ls := srcs[i]
		local := s.Path != "" && inPlatform(s)
		if local && ls.Path != nil {
			c.checkGitPath(co, gitPath{written: s.Path, dir: true, at: ls.Path.Expr.Range(), what: "path"})
		}
		if h, lh := s.Helm, ls.Helm; h != nil && lh != nil {
			// Argo CD skips a missing values file when told to.
			for _, f := range h.ValueFiles {
				if h.IgnoreMissingValueFiles || strings.Contains(f, "://") {
					continue
				}
				at := c.elemRange(lh.ValueFiles, f)
				ref, rest, ok := strings.Cut(strings.TrimPrefix(f, "$"), "/")
				if !strings.HasPrefix(f, "$") {
					if local {
						c.checkGitPath(co, gitPath{written: f, base: s.Path, at: at, what: "values file"})
					}
					continue
				}
				k := slices.IndexFunc(out, func(o *ir.Source) bool { return o.Ref == ref })
				if !ok || k < 0 || !inPlatform(out[k]) {
					continue
				}
				c.checkGitPath(co, gitPath{written: rest, at: at, what: "values file"})
			}
			if local && len(h.FileParameters) == len(lh.FileParameters) {
				for j, fp := range h.FileParameters {
					if fp.Path != "" && !strings.Contains(fp.Path, "://") && lh.FileParameters[j].Path != nil {
						c.checkGitPath(co, gitPath{written: fp.Path, base: s.Path, at: lh.FileParameters[j].Path.Expr.Range(), what: "file_parameter path"})
					}
				}
			}
		}
		if k, lk := s.Kustomize, ls.Kustomize; local && k != nil && lk != nil {
			for _, comp := range k.Components {
				c.checkGitPath(co, gitPath{written: comp, base: s.Path, dir: true, at: c.elemRange(lk.Components, comp), what: "kustomize component"})
			}
			if len(k.Patches) == len(lk.Patches) {
				for j, p := range k.Patches {
					if p.Path != "" && lk.Patches[j].Path != nil {
						c.checkGitPath(co, gitPath{written: p.Path, base: s.Path, at: lk.Patches[j].Path.Expr.Range(), what: "kustomize patch"})
					}
				}
			}
		}
		if d, ld := s.Directory, ls.Directory; local && d != nil && d.Jsonnet != nil && ld != nil && ld.Jsonnet != nil {
			// Argo CD reads Jsonnet libraries from the repository's
			// root, not from the source's path.
			for _, lib := range d.Jsonnet.Libs {
				c.checkGitPath(co, gitPath{written: lib, dir: true, at: c.elemRange(ld.Jsonnet.Libs, lib), what: "Jsonnet library"})
			}
		}
	}
}

// source lowers a source block: a Helm chart from a chart repository, or
// a path in a Git repository (the platform's own by default), or, with
// ref and neither, a Git repository whose files other sources read.
// Presence is what matters for its invariants, and null is absence:
// version = null is an unpinned chart, target_revision = null a foreign
// repository at HEAD. declared holds the refs of the app's sources.
func (c *compilation) source(ls *lang.Source, ref string, declared map[string]hcl.Range) *ir.Source {
	e := c.eval
	s := &ir.Source{DeclRange: ls.DeclRange, Ref: ref}
	hasChart, hasPath := e.present(ls.Chart), e.present(ls.Path)
	hasRepo, hasVersion, hasRev := e.present(ls.RepoURL), e.present(ls.Version), e.present(ls.TargetRevision)
	refOnly := !hasChart && !hasPath && ref != ""
	s.Chart, _ = e.typed(ls.Chart, gChartName)
	s.Path, _ = e.typed(ls.Path, gRepoPath)
	repo := gSourceRepo
	switch {
	case hasChart && !hasPath:
		repo = gHelmRepo
	case hasPath && !hasChart, refOnly:
		repo = gGitRepo
	}
	s.RepoURL, _ = e.typed(ls.RepoURL, repo)
	s.Version, _ = e.typed(ls.Version, gChartVersion)
	s.TargetRevision, _ = e.typed(ls.TargetRevision, gGitRef)
	switch {
	case hasChart && hasPath:
		c.diags = append(c.diags, diag.Error(ls.Path.NameRange, "Conflicting source",
			"A source is either a Helm chart (chart, repo_url, version) or a Git path (path, optional repo_url and target_revision), not both. Remove chart or path."))
	case hasChart:
		if !hasRepo {
			c.diags = append(c.diags, diag.Error(attrRange(ls.RepoURL, ls.DeclRange), "Missing chart repository",
				"A chart source needs repo_url, the Helm repository to pull the chart from, such as \"https://charts.jetstack.io\", or an OCI registry, such as \"oci://ghcr.io/org/charts\"."))
		}
		if !hasVersion {
			c.diags = append(c.diags, diag.Error(attrRange(ls.Version, ls.DeclRange), "Missing chart version",
				"A chart source needs a pinned version, such as version = \"1.16.1\" (RFC 6.2.1 forbids unversioned charts)."))
		}
		if ls.TargetRevision != nil {
			c.diags = append(c.diags, diag.Error(ls.TargetRevision.NameRange, "Target revision on a chart source",
				"target_revision applies to Git path sources. For a Helm chart, pin the chart with version instead."))
		}
		if ls.Ref != nil {
			c.diags = append(c.diags, diag.Error(ls.Ref.NameRange, "Ref on a chart source",
				"ref names a Git repository whose files other sources read as \"$ref/path\"; a chart repository has no such files. Move ref to a source with repo_url of a Git repository."))
		}
	case hasPath, refOnly:
		if ls.Version != nil {
			c.diags = append(c.diags, diag.Error(ls.Version.NameRange, "Version on a Git path source",
				"version pins a Helm chart. For a Git path, pin the revision with target_revision instead."))
		}
		if !hasRepo {
			s.RepoURL = c.prog.Platform.Git.RepoURL
		}
		if !hasRev {
			s.TargetRevision = c.prog.Platform.Git.Revision
			// The platform's revision names a commit of the platform's
			// repository; in another repository it means nothing, or worse,
			// something else.
			if s.RepoURL != c.prog.Platform.Git.RepoURL {
				c.diags = append(c.diags, diag.Error(attrRange(ls.TargetRevision, attrRange(ls.RepoURL, ls.DeclRange)), "Missing target revision",
					fmt.Sprintf("This source reads %s, not the platform repository, so the platform's revision %q does not apply to it. Add target_revision with a tag or commit of that repository.", s.RepoURL, c.prog.Platform.Git.Revision)))
			}
		}
	default:
		c.diags = append(c.diags, diag.Error(ls.DeclRange, "Empty source",
			"A source needs either chart (with repo_url and version) or path, or ref to name a repository other sources read values files from. Remove the source block if the app adopts an existing Application."))
	}
	c.sourceOptions(ls, s, hasChart, refOnly, declared)
	return s
}

// hooks checks declared hooks against INV-8: only application-internal
// purposes are allowed. Each attribute is checked on its own, so a hook
// without a manifest and with a forbidden purpose reports both.
func (c *compilation) hooks(la *lang.App, a *ir.App) {
	e := c.eval
	seen := map[string]hcl.Range{}
	for _, h := range la.Hooks {
		if d := checkName("hook", h.Name, h.NameRange); d != nil {
			c.diags = append(c.diags, d)
		}
		if first, ok := seen[h.Name]; ok {
			c.diags = append(c.diags, duplicateName("hook", h.Name, h.NameRange, first))
			continue
		}
		seen[h.Name] = h.NameRange
		hk := ir.Hook{Name: h.Name, Dir: dirOf(h.DeclRange), DeclRange: h.DeclRange}
		e.require(h.Phase, "phase", "hook", h.DeclRange)
		e.require(h.Purpose, "purpose", "hook", h.DeclRange)
		e.require(h.Manifest, "manifest", "hook", h.DeclRange)
		hk.Phase, _ = e.oneOf(h.Phase, hookPhases...)
		hk.Manifest, _ = c.localPath(h.Manifest, h.DeclRange)
		if purpose, ok := e.str(h.Purpose); ok {
			if slices.Contains(hookPurposes, purpose) {
				hk.Purpose = purpose
			} else {
				c.diags = append(c.diags, diag.Error(h.Purpose.Expr.Range(), "Forbidden hook purpose",
					fmt.Sprintf("Hooks may only do work inside their own app: migration, schema or init (RFC 2.2.3, INV-8). A %q hook orders apps through a hook, which hangs syncs and runs on every reconciliation. Remove the hook and express the ordering with depends_on instead.", purpose)))
			}
		}
		a.Hooks = append(a.Hooks, hk)
	}
}

// customResources reads custom_resources element by element, so INV-7
// failures point at the exact kind.
func (c *compilation) customResources(la *lang.App, a *ir.App) {
	attr := la.CustomResources
	if attr == nil {
		return
	}
	exprs, ds := hcl.ExprList(attr.Expr)
	if ds.HasErrors() {
		c.diags = append(c.diags, diag.Error(attr.Expr.Range(), "Invalid custom_resources",
			"custom_resources must be a list of kinds, such as [\"ceph.rook.io/CephCluster\"]."))
		return
	}
	seen := map[string]bool{}
	for _, x := range exprs {
		v, ok := c.eval.value(&hcl.Attribute{Name: "custom_resources", Expr: x}, cty.String, "a string")
		if !ok {
			continue
		}
		kind := v.AsString()
		if d := checkKind(kind, x.Range()); d != nil {
			c.diags = append(c.diags, d)
			continue
		}
		if seen[kind] {
			continue
		}
		seen[kind] = true
		group, name, _ := strings.Cut(kind, "/")
		a.CustomResources = append(a.CustomResources, ir.CustomResource{Group: group, Kind: name, Range: x.Range()})
	}
}

// uniqueApplications reports two apps that would drive the same Argo CD
// Application: both deploy tasks would sync it, and teardown would delete
// it twice. Apps are visited in declaration order, so the later one is
// reported.
func (c *compilation) uniqueApplications(byIndex []*ir.App) {
	first := make(map[string]*ir.App, len(byIndex))
	for i, a := range byIndex {
		if a == nil {
			continue
		}
		prev, ok := first[a.Application]
		if !ok {
			first[a.Application] = a
			continue
		}
		at := a.NameRange
		if attr := c.s.apps[i].Application; attr != nil {
			at = attr.Expr.Range()
		}
		c.diags = append(c.diags, diag.Error(at, "Duplicate Argo CD Application",
			fmt.Sprintf("app %q and app %q (%s) both name the Argo CD Application %q, so both would sync and delete it. Give one of them its own application name.", a.Name, prev.Name, diag.At(prev.NameRange), a.Application)))
	}
}
