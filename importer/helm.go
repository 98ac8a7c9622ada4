package importer

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/ignore"
	"helm.sh/helm/v4/pkg/strvals"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/manifest"
)

// Charts are rendered with the Helm SDK itself (helm.sh/helm/v4: the
// chart loader, values coalescing and the template engine), the way
// `helm template` and Argo CD render them, rather than by reading the
// static parts of templates: the target-chart pattern generates its
// Applications in a range over values, which no static reading sees.
// Helm v4.3 is built against the same Kubernetes libraries as platc
// (k8s.io v0.37), so it adds no second copy of them.

// renderApp renders the chart an Application's path source points at,
// with the values the Application gives it.
func (im *importer) renderApp(a *application, dir string) ([]*manifest.Object, bool) {
	helm := manifest.Lookup(a.obj.Node, "spec", "source", "helm")
	vals := map[string]any{}
	for _, f := range manifest.Strings(manifest.Lookup(helm, "valueFiles")) {
		p := filepath.FromSlash(f.Value)
		if !filepath.IsLocal(p) {
			im.diags = append(im.diags, diag.Warning(im.loc(a.obj.File.Range(f)), "Values file outside the chart",
				fmt.Sprintf("%q is not a file inside the chart %s, so the chart was rendered without it.", f.Value, dir)))
			continue
		}
		b, err := im.tree.Read(filepath.Join(dir, p))
		switch {
		case safefile.Refused(err):
			im.diags = append(im.diags, diag.Error(im.loc(a.obj.File.Range(f)), "Values file refused",
				fmt.Sprintf("%s. platc import reads only regular files inside the tree it imports, at most %s each, so the chart was rendered without it. Make it a regular file of the repository (not a link out of it, a device or a FIFO), or remove the entry.", safefile.Unwrap(err), safefile.Size(manifest.MaxFileSize))))
			continue
		case err != nil:
			im.diags = append(im.diags, diag.Warning(im.loc(a.obj.File.Range(f)), "Values file not found",
				fmt.Sprintf("Reading %s failed: %s. The chart was rendered without it; Argo CD would refuse to.", filepath.Join(dir, p), safefile.Unwrap(err))))
			continue
		}
		v, err := yamlValue(b)
		m, ok := v.(map[string]any)
		if err != nil || !ok && v != nil {
			im.diags = append(im.diags, diag.Error(im.loc(a.obj.File.Range(f)), "Unreadable values file",
				fmt.Sprintf("%s is not a YAML map of values (%v). The chart was rendered without it.", filepath.Join(dir, p), cmp.Or(err, errors.New("not a map")))))
			continue
		}
		vals = mergeMaps(vals, m)
	}
	if inline, ok := inlineValues(helm); ok {
		vals = mergeMaps(vals, inline)
	}
	for _, p := range items(manifest.Lookup(helm, "parameters")) {
		if err := setParameter(vals, p); err != nil {
			im.diags = append(im.diags, diag.Warning(im.loc(a.obj.File.Range(p)), "Helm parameter not applied",
				fmt.Sprintf("%s. The chart was rendered without it.", err)))
		}
	}
	release := manifest.Str(manifest.Lookup(helm, "releaseName"))
	if release == "" {
		release = a.name
	}
	ns := manifest.Str(manifest.Lookup(a.obj.Node, "spec", "destination", "namespace"))
	return im.renderChart(dir, vals, release, ns, a)
}

// inlineValues are the values written in the Application: valuesObject,
// which Argo CD prefers, or values, a string of YAML.
func inlineValues(helm *yaml.Node) (map[string]any, bool) {
	if vo := manifest.Lookup(helm, "valuesObject"); vo != nil {
		if v, err := nodeValue(vo); err == nil {
			if m, ok := v.(map[string]any); ok {
				return m, true
			}
		}
	}
	if v := manifest.Lookup(helm, "values"); v != nil && v.Kind == yaml.ScalarNode {
		if v, err := yamlValue([]byte(v.Value)); err == nil {
			if m, ok := v.(map[string]any); ok {
				return m, true
			}
		}
	}
	return nil, false
}

// setParameter applies one helm.parameters entry as Argo CD does: as
// --set, or --set-string with forceString, the value passed through
// Argo CD's cleanSetParameters.
func setParameter(vals map[string]any, p *yaml.Node) error {
	name := manifest.Str(manifest.Lookup(p, "name"))
	value := manifest.Str(manifest.Lookup(p, "value"))
	if name == "" {
		return fmt.Errorf("a parameter has no name")
	}
	if manifest.Str(manifest.Lookup(p, "forceString")) == "true" {
		return strvals.ParseIntoString(name+"="+cleanSetParameter(value), vals)
	}
	return strvals.ParseInto(name+"="+cleanSetParameter(value), vals)
}

// cleanSetParameter is what Argo CD does to a parameter's value before
// handing it to helm --set (util/helm/cmd.go, cleanSetParameters): a
// value in braces is a Helm list and stays as written; elsewhere every
// comma not already escaped is escaped, so it stays part of the value.
func cleanSetParameter(v string) string {
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		return v
	}
	var b strings.Builder
	var prev rune
	for _, r := range v {
		if r == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(r)
		}
		prev = r
	}
	return b.String()
}

// mergeMaps merges b into a as Helm merges values files: maps merge key
// by key, anything else in b replaces what a has.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// renderChart renders the chart in dir and reads the objects of its
// output. a is the Application that deploys it, nil for a chart no
// Application names. Helm runs in a renderer process (sandbox.go).
func (im *importer) renderChart(dir string, vals map[string]any, release, ns string, a *application) ([]*manifest.Object, bool) {
	im.rendered[dir] = true
	if release == "" {
		release = "release-name"
	}
	// The chart's files are read here, through the import's tree (only
	// regular files inside it); the renderer process only renders them.
	var files []renderedFile
	var logged string
	chFiles, err := chartFiles(im.tree, dir)
	if err == nil {
		var resp *sandboxResponse
		resp, err = runSandbox(&sandboxRequest{Helm: true, ChartFiles: chFiles, Values: vals, Release: release, Namespace: ns})
		if err == nil {
			files, logged = resp.Files, resp.Log
			if resp.Err != "" {
				err = errors.New(resp.Err)
			}
		}
	}
	chartFile := filepath.Join(dir, "Chart.yaml")
	im.readSource(chartFile)
	for _, line := range strings.Split(strings.TrimSpace(logged), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			im.diags = append(im.diags, diag.Warning(im.lineRange(chartFile, 1), "Helm warning",
				fmt.Sprintf("Rendering %s: %s.", dir, strings.TrimSuffix(line, "."))))
		}
	}
	if err != nil {
		im.diags = append(im.diags, im.renderError(dir, err, a))
		return nil, false
	}
	var objs []*manifest.Object
	for _, rf := range files {
		src := filepath.Join(dir, filepath.FromSlash(rf.path))
		im.readSource(src)
		name := src
		if a != nil {
			name += " (rendered for " + a.name + ")"
		}
		f, fobjs, d := manifest.Parse(name, []byte(rf.text))
		im.renders[name] = &rendering{source: src, out: f}
		if d != nil {
			d.Severity = hcl.DiagError
			d.Summary = "Chart renders invalid YAML"
			d.Detail = fmt.Sprintf("The output of %s is not valid YAML (%s); what follows the error was not imported. Run helm template on the chart to see it.", src, errDetail(d.Detail))
			r := im.loc(*d.Subject)
			d.Subject = &r
			im.diags = append(im.diags, d)
		}
		objs = append(objs, fobjs...)
	}
	return objs, true
}

// errDetail extracts the YAML error from the manifest package's detail.
func errDetail(detail string) string {
	if i := strings.Index(detail, "("); i >= 0 {
		if j := strings.Index(detail[i:], ")"); j >= 0 {
			return detail[i+1 : i+j]
		}
	}
	return detail
}

type renderedFile struct {
	path string // relative to the chart directory, slash-separated
	text string
}

// render is helm template: default values coalesced with vals, release
// options as for an install, default capabilities, no cluster.
func render(chFiles []*archive.BufferedFile, vals map[string]any, release, ns string) ([]renderedFile, error) {
	ch, err := loader.LoadFiles(chFiles)
	if err != nil {
		return nil, err
	}
	if ns == "" {
		ns = "default"
	}
	top, err := util.ToRenderValues(ch, vals, common.ReleaseOptions{Name: release, Namespace: ns, Revision: 1, IsInstall: true}, common.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(ch, top)
	if err != nil {
		return nil, err
	}
	var files []renderedFile
	for name, text := range out {
		if strings.TrimSpace(text) == "" || !isManifest(name) {
			continue
		}
		files = append(files, renderedFile{path: chartRelative(ch, name), text: text})
	}
	slices.SortFunc(files, func(a, b renderedFile) int { return strings.Compare(a.path, b.path) })
	return files, nil
}

func isManifest(name string) bool {
	ext := filepath.Ext(name)
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}

// chartRelative turns the engine's template names ("mychart/templates/
// x.yaml", "mychart/charts/sub/templates/y.yaml") into paths relative to
// the chart directory.
func chartRelative(ch *chart.Chart, name string) string {
	if rest, ok := strings.CutPrefix(name, ch.Name()+"/"); ok {
		return rest
	}
	return name
}

// readSource records a source file so diagnostics can show its lines.
func (im *importer) readSource(path string) *manifest.File {
	if f, ok := im.sources[path]; ok {
		return f
	}
	b, err := im.tree.Read(path)
	if err != nil {
		im.sources[path] = nil
		return nil
	}
	f := manifest.NewFile(path, b)
	im.sources[path] = f
	im.files[path] = &hcl.File{Bytes: b}
	return f
}

// lineRange is the range of a line of a source file.
func (im *importer) lineRange(path string, line int) hcl.Range {
	if f := im.readSource(path); f != nil {
		return f.LineRange(line)
	}
	return hcl.Range{Filename: path, Start: hcl.Pos{Line: line, Column: 1}, End: hcl.Pos{Line: line, Column: 1}}
}

// helmPos finds "file:line" in a Helm error; templates are named
// "<chart name>/templates/x.yaml".
var helmPos = regexp.MustCompile(`([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\.(?:yaml|yml|tpl|txt|json)):(\d+)`)

// renderError turns a Helm failure into a diagnostic at the template
// line it names, or at Chart.yaml.
func (im *importer) renderError(dir string, err error, a *application) *hcl.Diagnostic {
	var cf *chartFileError
	if errors.As(err, &cf) && safefile.Refused(cf.err) {
		// At the refused file itself: it cannot be quoted, and needs no
		// quoting, since only its kind or where it leads is wrong.
		r := hcl.Range{Filename: cf.path, Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 1}}
		what := "No Application deploys it; it was rendered in case it is an app-of-apps installed by hand"
		if a != nil {
			what = fmt.Sprintf("Application %q deploys it, so what it deploys was not imported", a.name)
		}
		return diag.Error(r, "Chart file refused",
			fmt.Sprintf("The chart %s was not rendered: %s. platc import reads only regular files inside the tree it imports (links among them are followed), at most %s each. %s. Make it a regular file of the chart (not a link out of the tree, a device or a FIFO), or remove it.", dir, cf, safefile.Size(manifest.MaxFileSize), what))
	}
	msg := err.Error()
	r := im.lineRange(filepath.Join(dir, "Chart.yaml"), 1)
	if m := helmPos.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		rel := m[1]
		if _, rest, ok := strings.Cut(rel, "/"); ok && strings.Contains(rel, "templates/") {
			rel = rest
		}
		if p := filepath.Join(dir, filepath.FromSlash(rel)); exists(p) {
			r = im.lineRange(p, line)
		}
	} else if strings.Contains(msg, "values.yaml") {
		if m := regexp.MustCompile(`line (\d+)`).FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			r = im.lineRange(filepath.Join(dir, "values.yaml"), line)
		}
	}
	if a == nil {
		// No Application deploys it: it was rendered only in case it is
		// an app-of-apps installed by hand, so failing is no lost input.
		return diag.Warning(r, "Chart does not render",
			fmt.Sprintf("Helm cannot render the chart %s with its default values: %s. No Application deploys it; if it is an app-of-apps installed by hand, its Applications were not imported.", dir, oneLine(msg)))
	}
	return diag.Error(r, "Chart does not render",
		fmt.Sprintf("Helm cannot render the chart %s: %s. Application %q deploys it, so what %q deploys (Applications included) was not imported, and no dependency was inferred from it. Fix the chart (helm template %s shows the same error) and import again.", dir, oneLine(msg), a.name, a.name, dir))
}

// A chartFileError is a file of a chart the tree refused to read.
type chartFileError struct {
	path string
	err  error
}

func (e *chartFileError) Error() string { return safefile.Unwrap(e.err).Error() }
func (e *chartFileError) Unwrap() error { return e.err }

// loadChart is Helm's loader.LoadDir with every file read through tree:
// LoadDir follows symbolic links anywhere and reads whatever they lead
// to, so a chart file linked to ~/.kube/config reached .Files.Get and the
// imported platform. The walk follows no link to a directory; a link to
// a file is read when it stays inside the tree. .helmignore is applied as
// Helm applies it.
func chartFiles(tree *safefile.Tree, dir string) ([]*archive.BufferedFile, error) {
	rules := ignore.Empty()
	if p := filepath.Join(dir, ignore.HelmIgnore); exists(p) {
		b, err := tree.Read(p)
		if err != nil {
			return nil, &chartFileError{path: p, err: err}
		}
		if rules, err = ignore.Parse(bytes.NewReader(b)); err != nil {
			return nil, err
		}
	}
	rules.AddDefaults()
	var files []*archive.BufferedFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		n := filepath.ToSlash(rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if rules.Ignore(n, fi) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		b, err := tree.Read(p)
		if err != nil {
			return &chartFileError{path: p, err: err}
		}
		files = append(files, &archive.BufferedFile{Name: n, ModTime: fi.ModTime(), Data: bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// A rendering ties a chart's rendered output to its template, so that
// evidence found in the output points at the template line.
type rendering struct {
	source string         // the template file
	out    *manifest.File // the rendered text
	lines  []int          // output line (0-based) → template line, computed on first use
}

// loc maps a range in rendered output to the template line it came
// from; other ranges are returned as they are.
func (im *importer) loc(r hcl.Range) hcl.Range {
	rd, ok := im.renders[r.Filename]
	if !ok {
		return r
	}
	tf := im.readSource(rd.source)
	if tf == nil {
		return hcl.Range{Filename: rd.source, Start: hcl.Pos{Line: 1, Column: 1}, End: hcl.Pos{Line: 1, Column: 1}}
	}
	if rd.lines == nil {
		rd.lines = mapLines(strings.Split(string(tf.Bytes), "\n"), strings.Split(string(rd.out.Bytes), "\n"))
	}
	line := 1
	if i := r.Start.Line - 1; i >= 0 && i < len(rd.lines) {
		line = rd.lines[i]
	}
	return tf.LineRange(line)
}

var action = regexp.MustCompile(`\{\{.*?\}\}`)

// mapLines maps each line of a template's output to the template line
// that most likely wrote it: the next line, from the previous match on
// (wrapping around, for ranges), whose static text matches with each
// action standing for any text. A line no template line matches (the
// output of an include, say) is given the previous match.
//
// Trying every template line for every output line took time in the
// product of their counts (82 s for a 528 KB repository, issue 21). Now
// lines without actions are looked up by their text; lines with actions
// by the text before their first action, in a trie the output line is
// walked through once; the next candidate of each is found by binary
// search, and at most maxPatternTries candidates are tried per output
// line, nearest first. The time is linear in the text (times the log of
// the template's length).
func mapLines(tmpl, out []string) []int {
	exact := map[string][]int{} // text → template lines, ascending
	prefixes := &trieNode{}     // text before the first action → lines
	res := make([]*regexp.Regexp, len(tmpl))
	for i, l := range tmpl {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !strings.Contains(t, "{{") {
			exact[t] = append(exact[t], i)
			continue
		}
		static := action.Split(t, -1)
		if strings.TrimSpace(strings.Join(static, "")) == "" {
			continue // only actions: writes no line of its own
		}
		var b strings.Builder
		b.WriteString("^")
		for k, s := range static {
			if k > 0 {
				b.WriteString(".*?")
			}
			b.WriteString(regexp.QuoteMeta(s))
		}
		b.WriteString("$")
		if re, err := regexp.Compile(b.String()); err == nil {
			res[i] = re
			prefixes.insert(static[0], i)
		}
	}
	n := len(tmpl)
	// dist is how far template line j is after cur, wrapping around.
	dist := func(cur, j int) int { return (j - cur + n) % n }
	// next is the first of the ascending lines ls at or after cur,
	// wrapping around, as an index into ls.
	next := func(ls []int, cur int) int {
		k, _ := slices.BinarySearch(ls, cur)
		return k % len(ls)
	}
	lines := make([]int, len(out))
	cur := 0
	type candidates struct {
		ls   []int
		k, n int // next index into ls, and how many were tried
	}
	var groups []candidates
	for i, l := range out {
		t := strings.TrimSpace(l)
		if t == "" {
			lines[i] = cur + 1
			continue
		}
		found, best := -1, n
		if ls := exact[t]; len(ls) > 0 {
			found = ls[next(ls, cur)]
			best = dist(cur, found)
		}
		// The lines with actions whose text before the first action
		// starts t, the most specific groups (longest text) first.
		groups = groups[:0]
		prefixes.walk(t, func(ls []int) {
			groups = append(groups, candidates{ls: ls, k: next(ls, cur)})
		})
		slices.Reverse(groups)
		groups = groups[:min(len(groups), maxPatternTries)]
		for try := 0; try < maxPatternTries; try++ {
			g := -1 // the group whose next candidate is nearest
			for x := range groups {
				if c := groups[x]; c.n < len(c.ls) && (g < 0 || dist(cur, c.ls[c.k]) < dist(cur, groups[g].ls[groups[g].k])) {
					g = x
				}
			}
			if g < 0 {
				break
			}
			c := &groups[g]
			j := c.ls[c.k]
			if dist(cur, j) >= best {
				break
			}
			if res[j].MatchString(t) {
				found = j
				break
			}
			c.k, c.n = (c.k+1)%len(c.ls), c.n+1
		}
		if found >= 0 {
			cur = found
		}
		lines[i] = cur + 1
	}
	return lines
}

// maxPatternTries bounds the template lines with actions tried for one
// output line, and the groups of them considered. Lines that share the
// text before their first action but do not match are rare; a line past
// the bound gets the previous match, as the output of an include does.
const maxPatternTries = 64

// trieNode indexes template lines by the text before their first action.
type trieNode struct {
	next  map[byte]*trieNode
	lines []int // ascending
}

func (t *trieNode) insert(key string, line int) {
	for i := 0; i < len(key); i++ {
		if t.next == nil {
			t.next = map[byte]*trieNode{}
		}
		c, ok := t.next[key[i]]
		if !ok {
			c = &trieNode{}
			t.next[key[i]] = c
		}
		t = c
	}
	t.lines = append(t.lines, line)
}

// walk calls fn with the lines of every key that is a prefix of s,
// shortest first.
func (t *trieNode) walk(s string, fn func([]int)) {
	for i := 0; ; i++ {
		if len(t.lines) > 0 {
			fn(t.lines)
		}
		if i == len(s) || t.next == nil {
			return
		}
		if t = t.next[s[i]]; t == nil {
			return
		}
	}
}

// items returns the items of a sequence node, or nil.
func items(n *yaml.Node) []*yaml.Node {
	n = manifest.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}
