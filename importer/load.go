package importer

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/detect"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/manifest"
)

// Bounds on the input, so that no repository makes the import run away.
const (
	maxApplications = 100_000
	maxDepth        = 32 // app-of-apps nesting
	// maxRead bounds what one import reads in all (each file is at most
	// manifest.MaxFileSize): the import keeps every file it reads.
	maxRead = 256 << 20
)

// load reads the trees at paths: every Application and ApplicationSet in
// them, then, Application by Application, what its source deploys, which
// may hold more Applications (an app-of-apps).
func (im *importer) load(paths []string) {
	var found []*manifest.Object
	for _, p := range paths {
		p = filepath.Clean(p)
		info, err := os.Stat(p)
		if err != nil {
			im.diags = append(im.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Import path not found",
				Detail:   fmt.Sprintf("Cannot open %s: %s. Pass the directory of the repository that holds your Argo CD Applications, or one of its files.", p, safefile.Unwrap(err)),
			})
			continue
		}
		l := manifest.NewLoader()
		l.Confine(im.tree)
		root := p
		if !info.IsDir() {
			root = filepath.Dir(p)
		}
		if err := im.tree.AddRoot(root); err != nil {
			im.diags = append(im.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Import path not found",
				Detail:   fmt.Sprintf("Cannot resolve %s: %s. Pass the directory of the repository that holds your Argo CD Applications, or one of its files.", root, safefile.Unwrap(err)),
			})
			continue
		}
		if info.IsDir() {
			l.Dir(p, true)
			im.findCharts(p)
		} else {
			l.File(p)
		}
		if !slices.Contains(im.roots, root) {
			im.roots = append(im.roots, root)
		}
		set, diags := l.Set()
		im.addSet(set, diags)
		for _, o := range set.Objects {
			if detect.IsApplication(o) || detect.IsApplicationSet(o) {
				found = append(found, o)
			}
		}
	}
	for _, o := range found {
		if detect.IsApplication(o) {
			im.add(o, nil, nil)
		} else {
			im.expandSet(o, nil)
		}
	}
	// The repositories the tree holds: a path source found at the top of
	// the tree whose directory exists there names the repository the tree
	// is a checkout of.
	for _, a := range im.apps {
		if a.src.path != "" && a.src.repoURL != "" {
			if root := im.localRoot(a.src.path); root != "" {
				if _, ok := im.repos[normRepo(a.src.repoURL)]; !ok {
					im.repos[normRepo(a.src.repoURL)] = root
				}
			}
		}
	}
	im.expand()
	// A chart in the tree that no Application renders may still be an
	// app-of-apps someone installs by hand (with helm, from a bootstrap
	// script): render it with its defaults to find its Applications.
	for _, dir := range im.charts {
		if im.rendered[dir] {
			continue
		}
		objs, ok := im.renderChart(dir, nil, "", "", nil)
		if !ok {
			continue
		}
		for _, o := range objs {
			switch {
			case detect.IsApplication(o):
				im.add(o, nil, nil)
			case detect.IsApplicationSet(o):
				im.expandSet(o, nil)
			}
		}
	}
	im.expand()
}

// expand reads the contents of every Application not read yet, adding
// the Applications they hold; new ones are read in turn.
func (im *importer) expand() {
	for ; im.next < len(im.apps); im.next++ {
		im.contents(im.apps[im.next])
	}
}

func (im *importer) addSet(set *manifest.Set, diags hcl.Diagnostics) {
	if set != nil {
		for _, f := range set.Files {
			im.files[f.Path] = &hcl.File{Bytes: f.Bytes}
		}
	}
	for _, d := range diags {
		// In an import, a file that cannot be read is input that was
		// skipped: an error, even though the rest is imported.
		switch d.Summary {
		case "Unreadable manifest", manifest.AliasesRefused, "Cannot read manifest", "Cannot read kustomization", "Manifest too large", "Kustomization entry outside the repository":
			d.Severity = hcl.DiagError
			d.Detail = strings.Replace(d.Detail, "was not scanned", "was not imported", 1)
			d.Detail = strings.Replace(d.Detail, ", or move the file out of the scanned directory if it is a template", "", 1)
		}
		if d.Summary == "Kustomization entry outside the repository" {
			d.Summary = "Kustomization entry outside the imported tree"
		}
		im.diags = append(im.diags, d)
	}
}

// findCharts lists the Helm charts under root.
func (im *importer) findCharts(root string) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "Chart.yaml" {
			dir := filepath.Dir(path)
			// A subchart renders as part of its parent.
			if up := filepath.Dir(dir); filepath.Base(up) != "charts" || !exists(filepath.Join(filepath.Dir(up), "Chart.yaml")) {
				im.charts = append(im.charts, dir)
			}
		}
		return nil
	})
	slices.Sort(im.charts)
	im.charts = slices.Compact(im.charts)
}

// localRoot returns the root under which a repository path exists as a
// directory, or "".
func (im *importer) localRoot(p string) string {
	if !filepath.IsLocal(filepath.FromSlash(p)) && p != "." {
		return ""
	}
	for _, r := range im.roots {
		if info, err := os.Stat(filepath.Join(r, filepath.FromSlash(p))); err == nil && info.IsDir() {
			return r
		}
	}
	return ""
}

// normRepo compares repository URLs the way people write them:
// with or without .git and a trailing slash, in any case.
func normRepo(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	u = strings.TrimSuffix(u, "/")
	return strings.TrimSuffix(u, ".git")
}

// objectID identifies an object by where it is written.
func objectID(o *manifest.Object) string {
	return fmt.Sprintf("%s:%d:%d", o.File.Path, o.Node.Line, o.Node.Column)
}

// add records an Application found in the contents of parent (nil at
// the top of the tree), or links it to parent when it is known already.
func (im *importer) add(o *manifest.Object, parent *application, set *manifest.Object) {
	im.addID(objectID(o), o, parent, set)
}

// addID is add for an object whose place in a file does not identify
// it: the Applications an ApplicationSet generates share their template.
func (im *importer) addID(id string, o *manifest.Object, parent *application, set *manifest.Object) {
	if a, ok := im.byID[id]; ok {
		im.link(a, parent)
		return
	}
	if len(im.apps) >= maxApplications {
		if !im.tooMany {
			im.tooMany = true
			im.diags = append(im.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Too many Applications",
				Detail: fmt.Sprintf("The tree holds more than %d Applications; the rest were not imported.", maxApplications)})
		}
		return
	}
	a, ok := im.parseApplication(o)
	if !ok {
		im.byID[id] = nil
		return
	}
	a.id, a.set = id, set
	im.byID[id] = a
	im.apps = append(im.apps, a)
	im.link(a, parent)
}

// link makes a a child of parent, unless it has a parent already or the
// link would close a loop of app-of-apps.
func (im *importer) link(a, parent *application) {
	if a == nil || parent == nil || a.parent == parent {
		return
	}
	if a.parent != nil {
		im.diags = append(im.diags, diag.Warning(im.nameRange(a), "Application deployed twice",
			fmt.Sprintf("Application %q is in the contents of both %q and %q; Argo CD would fight over it. It was imported as a child of %q.", a.name, a.parent.name, parent.name, a.parent.name)))
		return
	}
	depth := 0
	for p := parent; p != nil; p = p.parent {
		if p == a {
			im.diags = append(im.diags, diag.Error(im.nameRange(a), "App-of-apps loop",
				fmt.Sprintf("Application %q is in the contents of %q, which it deploys itself. The loop was cut there; fix the source paths.", a.name, parent.name)))
			return
		}
		depth++
	}
	if depth > maxDepth {
		im.diags = append(im.diags, diag.Error(im.nameRange(a), "App-of-apps too deep",
			fmt.Sprintf("Application %q is nested more than %d app-of-apps deep; it was not imported below that.", a.name, maxDepth)))
		return
	}
	a.parent = parent
	parent.children = append(parent.children, a)
}

// nameRange is where an Application is named, for diagnostics.
func (im *importer) nameRange(a *application) hcl.Range {
	if k, v := manifest.Entry(manifest.Lookup(a.obj.Node, "metadata"), "name"); k != nil {
		return im.loc(a.obj.File.Span(k, v))
	}
	return im.loc(a.obj.File.Range(a.obj.Node))
}

// parseApplication reads what the import needs of an Application. One
// without a source is reported and skipped.
func (im *importer) parseApplication(o *manifest.Object) (*application, bool) {
	a := &application{obj: o, name: o.Name, argoNS: o.Namespace}
	if a.argoNS == "" {
		a.argoNS = o.KustomizeNamespace
	}
	if a.name == "" {
		im.diags = append(im.diags, diag.Error(im.loc(o.File.Range(o.Node)), "Application without a name",
			"This Application has no metadata.name, so Argo CD would refuse it. It was not imported; give it a name."))
		return nil, false
	}
	spec := manifest.Lookup(o.Node, "spec")
	src := manifest.Lookup(spec, "source")
	if src == nil {
		if srcs := manifest.Lookup(spec, "sources"); srcs != nil && srcs.Kind == yaml.SequenceNode && len(srcs.Content) > 0 {
			src = srcs.Content[0]
		}
	}
	if src == nil || src.Kind != yaml.MappingNode {
		r := im.nameRange(a)
		if spec != nil {
			if k, _ := manifest.Entry(o.Node, "spec"); k != nil {
				r = im.loc(o.File.Range(k))
			}
		}
		im.diags = append(im.diags, diag.Error(r, "Application without a source",
			fmt.Sprintf("Application %q has neither spec.source nor spec.sources, so there is nothing to deploy and nothing to import. It was skipped; add its source (repoURL with path or chart) and import again.", a.name)))
		return nil, false
	}
	a.src = source{
		repoURL:  manifest.Str(manifest.Lookup(src, "repoURL")),
		path:     manifest.Str(manifest.Lookup(src, "path")),
		chart:    manifest.Str(manifest.Lookup(src, "chart")),
		revision: manifest.Str(manifest.Lookup(src, "targetRevision")),
	}
	if a.src.repoURL == "" || (a.src.path == "" && a.src.chart == "") {
		k, _ := manifest.Entry(spec, "source")
		if k == nil {
			k = src
		}
		im.diags = append(im.diags, diag.Error(im.loc(o.File.Range(k)), "Application without a source",
			fmt.Sprintf("The source of Application %q lacks repoURL, or both path and chart, so Argo CD cannot deploy it. It was skipped; complete the source and import again.", a.name)))
		return nil, false
	}
	if ann, ok := detect.SyncWave(o); ok {
		a.waveAnn = &ann
		if w, err := strconv.Atoi(strings.TrimSpace(ann.Value.Value)); err == nil {
			a.wave = w
		} else {
			im.diags = append(im.diags, diag.Warning(im.loc(o.File.Span(ann.Key, ann.Value)), "Invalid sync wave",
				fmt.Sprintf("Sync wave %q of Application %q is not an integer; Argo CD reads it as 0, and so does the import.", ann.Value.Value, a.name)))
		}
	}
	return a, true
}

// contents reads what an Application's source deploys, when it is in the
// tree, and records the Applications and ApplicationSets among it.
func (im *importer) contents(a *application) {
	switch {
	case a.src.chart != "":
		a.why = fmt.Sprintf("chart %q comes from the Helm repository %s, which the import does not download", a.src.chart, a.src.repoURL)
		return
	case a.src.path == "":
		return
	}
	root, ok := im.repos[normRepo(a.src.repoURL)]
	if !ok {
		a.why = fmt.Sprintf("its repository %s is not the one being imported", a.src.repoURL)
		return
	}
	p := filepath.FromSlash(a.src.path)
	dir := filepath.Join(root, p)
	if info, err := os.Stat(dir); !filepath.IsLocal(p) && p != "." || err != nil || !info.IsDir() {
		a.why = fmt.Sprintf("its path %q is not a directory of %s", a.src.path, root)
		im.diags = append(im.diags, diag.Warning(im.srcRange(a, "path"), "Source path not found",
			fmt.Sprintf("Application %q deploys %q from %s, but %s is not a directory in the imported tree, so what it deploys is unknown: no dependency can be inferred from it, and Applications in it are not imported. Import the whole repository, or fix the path.", a.name, a.src.path, a.src.repoURL, dir)))
		return
	}
	// A committed link (apps/x -> /home/user) must not make the import
	// read a directory outside the tree.
	if !im.tree.Contains(dir) {
		a.why = fmt.Sprintf("its path %q leads outside the imported tree", a.src.path)
		im.diags = append(im.diags, diag.Error(im.srcRange(a, "path"), "Source path outside the imported tree",
			fmt.Sprintf("Application %q deploys %q, but %s leads outside %s through a symbolic link, and platc import reads only files inside the tree it imports. Nothing was read from it: replace the link with the directory, or import the repository it points into.", a.name, a.src.path, dir, root)))
		return
	}
	a.src.dir = dir
	var objs []*manifest.Object
	switch {
	case exists(filepath.Join(dir, "Chart.yaml")):
		var ok bool
		objs, ok = im.renderApp(a, dir)
		if !ok {
			a.why = "its chart does not render"
			return
		}
		a.rendered = true
	default:
		l := manifest.NewLoader()
		l.Confine(im.tree)
		if k := manifest.FindKustomization(dir); k != "" {
			r := im.srcRange(a, "path")
			l.Kustomization(k, &r)
		} else {
			recurse := manifest.Str(manifest.Lookup(a.obj.Node, "spec", "source", "directory", "recurse")) == "true"
			l.Dir(dir, recurse)
		}
		set, diags := l.Set()
		im.addSet(set, diags)
		objs = set.Objects
	}
	a.known = true
	a.contents = objs
	for _, o := range objs {
		switch {
		case detect.IsApplication(o):
			im.add(o, a, nil)
		case detect.IsApplicationSet(o):
			a.sets = append(a.sets, o)
			im.expandSet(o, a)
		}
	}
}

// srcRange is where a field of an Application's source is written.
func (im *importer) srcRange(a *application, field string) hcl.Range {
	src := manifest.Lookup(a.obj.Node, "spec", "source")
	if k, v := manifest.Entry(src, field); k != nil {
		return im.loc(a.obj.File.Span(k, v))
	}
	return im.nameRange(a)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
