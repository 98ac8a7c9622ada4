package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/manifest"
)

// maxGenerated bounds the Applications one ApplicationSet may generate.
const maxGenerated = 10_000

// appSet records one ApplicationSet for the report.
type appSet struct {
	obj       *manifest.Object
	parent    *application
	generated []*application
}

// expandSet generates the Applications of an ApplicationSet as the
// ApplicationSet controller would, from its list and Git directory
// generators, and adds them as children of parent (the app-of-apps that
// deploys the set; nil at the top of the tree). Other generators depend
// on the live cluster or on other services, so they are reported and
// skipped.
func (im *importer) expandSet(o *manifest.Object, parent *application) {
	id := objectID(o)
	if rec, ok := im.setSeen[id]; ok {
		// Found again in the contents of the app-of-apps that deploys
		// it, after the walk of the tree found it first.
		if rec.parent == nil && parent != nil {
			rec.parent = parent
			for _, a := range rec.generated {
				im.link(a, parent)
			}
		}
		return
	}
	rec := &appSet{obj: o, parent: parent}
	im.setSeen[id] = rec
	im.appSets = append(im.appSets, rec)
	spec := manifest.Lookup(o.Node, "spec")
	tmpl := manifest.Lookup(spec, "template")
	if tmpl == nil || tmpl.Kind != yaml.MappingNode {
		im.diags = append(im.diags, diag.Error(im.loc(o.File.Range(o.Node)), "ApplicationSet without a template",
			fmt.Sprintf("ApplicationSet %q has no spec.template, so it generates nothing; it was skipped.", o.Name)))
		return
	}
	goTmpl := manifest.Str(manifest.Lookup(spec, "goTemplate")) == "true"
	missingKeyError := slices.ContainsFunc(manifest.Strings(manifest.Lookup(spec, "goTemplateOptions")), func(n *yaml.Node) bool { return n.Value == "missingkey=error" })
	if k, _ := manifest.Entry(spec, "templatePatch"); k != nil {
		im.diags = append(im.diags, diag.Warning(im.loc(o.File.Range(k)), "ApplicationSet templatePatch not applied",
			fmt.Sprintf("The import generates the Applications of %q from spec.template alone; what templatePatch changes is not in them. Check the imported apps against it.", o.Name)))
	}
	params := im.generate(o, spec)
	if len(params) > maxGenerated {
		im.diags = append(im.diags, diag.Error(im.loc(o.File.Range(o.Node)), "ApplicationSet too large",
			fmt.Sprintf("ApplicationSet %q generates %d Applications; only the first %d were imported.", o.Name, len(params), maxGenerated)))
		params = params[:maxGenerated]
	}
	argoNS := o.Namespace
	if argoNS == "" {
		argoNS = o.KustomizeNamespace
	}
	// Go templates run in a renderer process (sandbox.go), every element
	// at once; fasttemplate only substitutes names, in time linear in
	// the text.
	var rendered *sandboxResponse
	var texts map[string]int
	if goTmpl && len(params) > 0 {
		texts = map[string]int{}
		req := &sandboxRequest{Params: params, MissingKeyError: missingKeyError}
		eachTemplate(tmpl, func(s string) {
			if _, ok := texts[s]; !ok {
				texts[s] = len(req.Templates)
				req.Templates = append(req.Templates, s)
			}
		})
		var err error
		if len(req.Templates) == 0 {
			rendered = &sandboxResponse{}
		} else if rendered, err = runSandbox(req); err != nil {
			im.diags = append(im.diags, diag.Error(im.loc(o.File.Range(tmpl)), "ApplicationSet template does not render",
				fmt.Sprintf("Rendering the template of %q failed: %s. Its Applications were not imported.", o.Name, err)))
			return
		}
	}
	for i, p := range params {
		var render func(string) (string, error)
		if !goTmpl {
			flat := flatParams(p)
			render = func(s string) (string, error) { return fastRender(s, flat), nil }
		} else {
			render = func(s string) (string, error) {
				j := texts[s]
				if e := rendered.Errs[i][j]; e != "" {
					return s, errors.New(e)
				}
				return rendered.Out[i][j], nil
			}
		}
		n, err := substitute(o.File, tmpl, render)
		if err != nil {
			im.diags = append(im.diags, diag.Error(im.loc(err.at), "ApplicationSet template does not render",
				fmt.Sprintf("Rendering the template of %q for its element %d failed: %s. That Application was not imported.", o.Name, i+1, err.msg)))
			continue
		}
		app := &yaml.Node{Kind: yaml.MappingNode, Line: tmpl.Line, Column: tmpl.Column, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "apiVersion", Line: tmpl.Line, Column: tmpl.Column},
			{Kind: yaml.ScalarNode, Value: "argoproj.io/v1alpha1", Line: tmpl.Line, Column: tmpl.Column},
			{Kind: yaml.ScalarNode, Value: "kind", Line: tmpl.Line, Column: tmpl.Column},
			{Kind: yaml.ScalarNode, Value: "Application", Line: tmpl.Line, Column: tmpl.Column},
		}}
		app.Content = append(app.Content, n.Content...)
		gen := &manifest.Object{
			File: o.File, Node: app, APIVersion: "argoproj.io/v1alpha1", Kind: "Application",
			Name:      manifest.Str(manifest.Lookup(app, "metadata", "name")),
			Namespace: manifest.Str(manifest.Lookup(app, "metadata", "namespace")),
			Via:       o.Via, KustomizeNamespace: o.KustomizeNamespace,
		}
		if gen.Namespace == "" {
			// The controller creates Applications in its own namespace.
			gen.Namespace = argoNS
		}
		before := len(im.apps)
		im.addID(fmt.Sprintf("%s#%d", id, i), gen, parent, o)
		if len(im.apps) > before {
			rec.generated = append(rec.generated, im.apps[len(im.apps)-1])
		}
	}
}

// generate yields the parameter sets of an ApplicationSet's list and Git
// directory generators, reporting the generators it cannot expand.
func (im *importer) generate(o *manifest.Object, spec *yaml.Node) []map[string]any {
	var params []map[string]any
	for _, g := range items(manifest.Lookup(spec, "generators")) {
		g = manifest.Resolve(g)
		if g.Kind != yaml.MappingNode || len(g.Content) < 2 {
			continue
		}
		key, body := g.Content[0], g.Content[1]
		switch key.Value {
		case "list":
			for _, el := range items(manifest.Lookup(body, "elements")) {
				var m map[string]any
				if err := el.Decode(&m); err != nil || m == nil {
					im.diags = append(im.diags, diag.Error(im.loc(o.File.Range(el)), "Invalid ApplicationSet element",
						"A list generator element must be a map of parameters; this one was skipped."))
					continue
				}
				params = append(params, m)
			}
		case "git":
			params = append(params, im.gitDirectories(o, key, body)...)
		default:
			im.diags = append(im.diags, diag.Warning(im.loc(o.File.Range(key)), "ApplicationSet generator not expanded",
				fmt.Sprintf("The import expands list and Git directory generators only: what a %s generator yields depends on the cluster or other services. The Applications it generates for %q were not imported; add them as apps by hand.", key.Value, o.Name)))
		}
	}
	return params
}

// gitDirectories yields the parameters of a Git directory generator for
// a repository in the tree: one set per directory matching its paths.
func (im *importer) gitDirectories(o *manifest.Object, key, body *yaml.Node) []map[string]any {
	repo := manifest.Str(manifest.Lookup(body, "repoURL"))
	dirs := manifest.Lookup(body, "directories")
	if dirs == nil {
		im.diags = append(im.diags, diag.Warning(im.loc(o.File.Range(key)), "ApplicationSet generator not expanded",
			fmt.Sprintf("The import expands Git generators with directories only; the Applications %q generates from files were not imported. Add them as apps by hand.", o.Name)))
		return nil
	}
	root, ok := im.repos[normRepo(repo)]
	if !ok && len(im.roots) > 0 && im.isTopRepo(repo) {
		root, ok = im.roots[0], true
	}
	if !ok {
		im.diags = append(im.diags, diag.Warning(im.loc(o.File.Range(key)), "ApplicationSet generator not expanded",
			fmt.Sprintf("The Git generator of %q reads %s, which is not the repository being imported, so the directories it would find are unknown. Add its Applications as apps by hand, or import that repository too.", o.Name, repo)))
		return nil
	}
	var all []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(root, p)
		if err == nil {
			all = append(all, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(all)
	var include, exclude []string
	for _, d := range items(dirs) {
		pat := manifest.Str(manifest.Lookup(d, "path"))
		if manifest.Str(manifest.Lookup(d, "exclude")) == "true" {
			exclude = append(exclude, pat)
		} else {
			include = append(include, pat)
		}
	}
	matches := func(pats []string, p string) bool {
		return slices.ContainsFunc(pats, func(pat string) bool { ok, _ := path.Match(pat, p); return ok })
	}
	var out []map[string]any
	for _, p := range all {
		if !matches(include, p) || matches(exclude, p) {
			continue
		}
		base := path.Base(p)
		out = append(out, map[string]any{
			"path": map[string]any{
				"path":               p,
				"basename":           base,
				"basenameNormalized": normalizeName(base),
				"segments":           strings.Split(p, "/"),
			},
		})
	}
	return out
}

// isTopRepo reports whether repo is what the Applications at the top of
// the tree deploy from, the repository that is being imported, when no
// path source has told yet.
func (im *importer) isTopRepo(repo string) bool {
	for _, a := range im.apps {
		if a.parent == nil && normRepo(a.src.repoURL) == normRepo(repo) {
			return true
		}
	}
	return len(im.apps) == 0
}

var notNameChar = regexp.MustCompile(`[^a-z0-9-]+`)

// normalizeName is the ApplicationSet controller's basenameNormalized:
// lower case, anything else than letters, digits and '-' replaced by '-'.
func normalizeName(s string) string {
	return notNameChar.ReplaceAllString(strings.ToLower(s), "-")
}

type templateError struct {
	at  hcl.Range
	msg string
}

// eachTemplate calls fn with every string of an ApplicationSet template
// that holds a template action, in the order substitute meets them.
func eachTemplate(tmpl *yaml.Node, fn func(string)) {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		n = manifest.Resolve(n)
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "{{") {
			fn(n.Value)
		}
		for _, k := range n.Content {
			walk(k)
		}
	}
	walk(tmpl)
}

// flatParams names parameters for fasttemplate (flatten).
func flatParams(params map[string]any) map[string]string {
	flat := map[string]string{}
	flatten("", params, flat)
	return flat
}

// substitute renders an ApplicationSet template for one set of
// parameters: a copy of the template whose strings have the parameters
// put in by render, with fasttemplate's {{name}} (unknown names are left
// as written) or, with goTemplate, Go templates with Sprig's functions.
func substitute(f *manifest.File, tmpl *yaml.Node, render func(string) (string, error)) (*yaml.Node, *templateError) {
	var terr *templateError
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		n = manifest.Resolve(n)
		c := *n
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "{{") {
			v, err := render(n.Value)
			if err != nil && terr == nil {
				terr = &templateError{f.Range(n), err.Error()}
			}
			c.Value = v
			if c.Tag != "" && c.Tag != "!!str" {
				c.Tag = ""
			}
		}
		if len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, k := range n.Content {
				c.Content[i] = walk(k)
			}
		}
		return &c
	}
	out := walk(tmpl)
	return out, terr
}

// flatten names parameters the way fasttemplate mode sees them: nested
// maps as dotted names, lists indexed, and the directory generator's
// path parameters as {{path}}, {{path.basename}}, {{path[0]}}.
func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		if p, ok := t["path"].(string); ok && prefix == "path" {
			out["path"] = p
			out["path.basename"] = fmt.Sprint(t["basename"])
			out["path.basenameNormalized"] = fmt.Sprint(t["basenameNormalized"])
			if segs, ok := t["segments"].([]string); ok {
				for i, s := range segs {
					out[fmt.Sprintf("path[%d]", i)] = s
				}
			}
			return
		}
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, x, out)
		}
	case []any:
		for i, x := range t {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), x, out)
		}
	case nil:
		out[prefix] = ""
	default:
		out[prefix] = fmt.Sprint(t)
	}
}

var fastTag = regexp.MustCompile(`\{\{(.*?)\}\}`)

func fastRender(s string, params map[string]string) string {
	return fastTag.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := params[strings.TrimSpace(m[2:len(m)-2])]; ok {
			return v
		}
		return m
	})
}

// goRender renders one Go template; out bounds what all the templates
// of a rendering write.
func goRender(s string, params map[string]any, missingKeyError bool, out *budgetWriter) (string, error) {
	funcs := sprig.TxtFuncMap()
	// The ApplicationSet controller removes these: nothing of the
	// environment or the network reaches a template.
	delete(funcs, "env")
	delete(funcs, "expandenv")
	delete(funcs, "getHostByName")
	t := template.New("").Funcs(funcs)
	if missingKeyError {
		t = t.Option("missingkey=error")
	}
	t, err := t.Parse(s)
	if err != nil {
		return s, err
	}
	out.b.Reset()
	if err := t.Execute(out, params); err != nil {
		return s, err
	}
	return out.b.String(), nil
}
