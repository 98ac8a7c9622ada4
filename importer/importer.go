package importer

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/detect"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
	"github.com/platc/platc/manifest"
	"github.com/platc/platc/report"
)

// Options configure an import.
type Options struct {
	// OutDir is the directory platform.hcl is meant for: the self-check
	// lints the platform as if it were there. "" means the current
	// directory.
	OutDir string
	// Name is the platform's name; "" derives it from the root
	// Application.
	Name string
}

// PlatformFile is the name of the file the platform is meant to be
// written to, in Options.OutDir.
const PlatformFile = "platform.hcl"

// File is one more file to write next to the platform: an adopted
// Application, kept as it is written.
type File struct {
	Path string // slash-separated, relative to the output directory
	Data []byte
}

// Result is an import's output.
type Result struct {
	// HCL is the platform, for PlatformFile.
	HCL []byte
	// Adopted are the Applications kept verbatim, under adopted/.
	Adopted []File
	// Hooks are the manifests of the hooks kept, under hooks/<app>/.
	Hooks  []File
	Report *Report
	// Files holds every source file read, for rendering diagnostics
	// with snippets.
	Files map[string]*hcl.File
}

// Import reads the repository trees at paths and returns the platform in
// platc's language and the report. Bad input (a file that is not YAML,
// an Application without a source, a chart that does not render) is
// reported as an error diagnostic with its file and line, and the rest
// is imported. The result is nil only when nothing could be imported.
//
// A non-nil error means platc itself failed: the platform it wrote does
// not compile, which is a bug.
func Import(paths []string, opts Options) (*Result, hcl.Diagnostics, error) {
	return newImporter(opts).run(paths)
}

func newImporter(opts Options) *importer {
	return &importer{
		opts:      opts,
		tree:      safefile.NewTree(manifest.MaxFileSize, maxRead),
		files:     map[string]*hcl.File{},
		sources:   map[string]*manifest.File{},
		byID:      map[string]*application{},
		repos:     map[string]string{},
		rendered:  map[string]bool{},
		renders:   map[string]*rendering{},
		setSeen:   map[string]*appSet{},
		edgeByKey: map[string]*edge{},
	}
}

func (im *importer) run(paths []string) (*Result, hcl.Diagnostics, error) {
	if n := im.opts.Name; n != "" {
		if why := compiler.Check(compiler.FieldName, n); why != "" {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid platform name",
				Detail: fmt.Sprintf("--name %s %s. Pass a name such as \"acme\".", strconv.Quote(shorten(n)), why)}}, nil
		}
	}
	im.load(paths)
	if len(im.apps) == 0 {
		if !im.diags.HasErrors() {
			im.diags = append(im.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No Applications found",
				Detail:   fmt.Sprintf("No Argo CD Application or ApplicationSet was found under %s, so there is nothing to import. Pass the repository that holds them (the directory of your root app-of-apps).", strings.Join(paths, ", ")),
			})
		}
		return nil, im.diagnostics(), nil
	}
	im.platform()
	im.build()
	// The compiler judges every value the language now carries (refs,
	// options, metadata): an app it refuses is adopted, with its
	// reasons, so that the imported platform always compiles.
	im.trialAll()
	if len(im.outApps) == 0 {
		im.diags = append(im.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No apps to import",
			Detail:   "Every Application found is an app-of-apps, or was skipped; there is no app to deploy.",
		})
		return nil, im.diagnostics(), nil
	}
	im.infer()
	im.breakCycles()
	im.findRedundant()
	hooks := im.hookFiles()
	res := &Result{HCL: im.writeHCL(), Files: im.files, Hooks: hooks}
	res.Adopted = im.adoptedFiles()
	found, err := im.check(res.HCL, append(slices.Clip(res.Adopted), res.Hooks...))
	if err != nil {
		return nil, im.diagnostics(), err
	}
	res.Report = im.report(found)
	return res, im.diagnostics(), nil
}

// diagnostics are the import's diagnostics, sorted. Their summaries and
// details quote file names and text of the imported tree, which may hold
// line breaks (a forged "Error:" line) or terminal escapes: they are
// kept to one line, escaped as report.Inline does. The text report
// escapes locations itself; JSON escapes what it must.
func (im *importer) diagnostics() hcl.Diagnostics {
	for _, d := range im.diags {
		d.Summary, d.Detail = report.Inline(d.Summary), report.Inline(d.Detail)
	}
	return diag.Sort(im.diags)
}

// importer is the state of one import.
type importer struct {
	opts  Options
	roots []string
	// tree is the only way the import reads a file of the imported
	// trees: Helm's loader, values files and kustomizations included.
	tree  *safefile.Tree
	diags hcl.Diagnostics
	// files are the sources read, for diagnostics; sources are the
	// chart files read, by path.
	files   map[string]*hcl.File
	sources map[string]*manifest.File

	apps    []*application
	next    int // apps before next have had their contents read
	byID    map[string]*application
	tooMany bool
	// repos maps a repository URL (normRepo) to the root that is a
	// checkout of it.
	repos    map[string]string
	charts   []string
	rendered map[string]bool // chart directories rendered
	renders  map[string]*rendering
	setSeen  map[string]*appSet
	appSets  []*appSet

	platformName, argoNS, gitRepo, gitRevision string

	// clusters are the destination clusters the Applications name, in
	// the order first met.
	clusters      []*clusterOut
	outApps       []*appOut
	stacks        []*stackOut
	order         []node // stacks and top-level apps, in output order
	replaced      []*application
	adopted       []*appOut
	droppedFields []dropped
	hooks         []*hookOut

	prov      *providers
	edges     []*edge
	edgeByKey map[string]*edge
	from      map[node][]*edge
	cycles    []*cycle
}

// platform decides the platform block: named after the root
// app-of-apps, in the namespace most Applications live in, deploying
// from the repository and revision the root deploys from.
func (im *importer) platform() {
	counts := map[string]int{}
	for _, a := range im.apps {
		if a.argoNS != "" {
			counts[a.argoNS]++
		}
	}
	im.argoNS = "argocd"
	for _, ns := range sortedKeys(counts) {
		if compiler.Check(compiler.FieldArgoCDNamespace, ns) != "" {
			continue // such Applications are adopted
		}
		if counts[ns] > counts[im.argoNS] {
			im.argoNS = ns
		}
	}
	var root *application
	for _, a := range im.apps {
		if a.parent == nil && a.isAppOfApps() {
			root = a
			break
		}
	}
	if root == nil {
		root = im.apps[0]
	}
	im.platformName = im.opts.Name
	if im.platformName == "" {
		im.platformName = hclName(strings.TrimSuffix(strings.TrimSuffix(root.name, "-root"), "-apps"))
		if root.parent == nil && !root.isAppOfApps() {
			im.platformName = "imported"
		}
	}
	im.pickRepo(root)
	if im.gitRepo == placeholderRepo {
		return
	}
	for _, v := range []struct {
		field string
		f     compiler.Field
		s     *string
	}{{"repository URL", compiler.FieldGitRepo, &im.gitRepo}, {"revision", compiler.FieldGitRevision, &im.gitRevision}} {
		if why := compiler.Check(v.f, *v.s); why != "" {
			im.diags = append(im.diags, diag.Warning(im.nameRange(root), "Unusable platform repository",
				fmt.Sprintf("The platform repository's %s %s %s, so platc cannot use it as platform.git. platform.git.repo_url and revision are placeholders: set them to the repository platc's generated output will be committed to.", v.field, strconv.Quote(shorten(*v.s)), why)))
			im.gitRepo, im.gitRevision = placeholderRepo, "HEAD"
			return
		}
	}
}

// placeholderRepo is platform.git.repo_url when the import cannot tell.
const placeholderRepo = "https://git.example.com/CHANGE-ME.git"

// pickRepo picks the repository generated/ is committed to: the one the
// root app-of-apps deploys from, or else the Git repository most path
// sources use, at the revision most of them use.
func (im *importer) pickRepo(root *application) {
	if root.isAppOfApps() && root.src.path != "" {
		im.gitRepo, im.gitRevision = root.src.repoURL, cmp.Or(root.src.revision, "HEAD")
		return
	}
	repos, revs := map[string]int{}, map[string]map[string]int{}
	for _, a := range im.apps {
		if a.src.path == "" {
			continue
		}
		repos[a.src.repoURL]++
		if revs[a.src.repoURL] == nil {
			revs[a.src.repoURL] = map[string]int{}
		}
		revs[a.src.repoURL][cmp.Or(a.src.revision, "HEAD")]++
	}
	for _, r := range sortedKeys(repos) {
		if im.gitRepo == "" || repos[r] > repos[im.gitRepo] {
			im.gitRepo = r
		}
	}
	if im.gitRepo == "" {
		im.gitRepo, im.gitRevision = placeholderRepo, "HEAD"
		im.diags = append(im.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "No platform repository",
			Detail: "No Application deploys a path of a Git repository, so the import cannot tell which repository platc's generated output will be committed to. platform.git.repo_url is a placeholder: set it to that repository."})
		return
	}
	for _, v := range sortedKeys(revs[im.gitRepo]) {
		if im.gitRevision == "" || revs[im.gitRepo][v] > revs[im.gitRepo][im.gitRevision] {
			im.gitRevision = v
		}
	}
}

// hookFiles copies each declared hook's manifest next to the platform,
// under hooks/<app>/, and points the hook block at the copy: platc reads
// nothing outside the platform directory, and the imported platform must
// not depend on where the old repository was checked out.
func (im *importer) hookFiles() []File {
	var out []File
	for _, a := range im.outApps {
		for _, h := range a.hooks {
			h.manifest = "hooks/" + a.name + "/" + h.name + ".yaml"
			// A YAML comment ends at a line break as an HCL one does.
			header := "# " + comment(fmt.Sprintf("%s %s of app %q, copied by platc import from %s.", h.phase, detect.ObjectName(h.obj), a.name, at(h.at))) + "\n"
			out = append(out, File{Path: h.manifest, Data: append([]byte(header), objectBytes(h.obj, true)...)})
		}
	}
	return out
}

// objectBytes is an object as YAML: the bytes of its document when it is
// one in a file (asWritten), else the object encoded.
func objectBytes(o *manifest.Object, asWritten bool) []byte {
	if asWritten {
		if data := documentBytes(o); data != nil {
			return data
		}
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(o.Node); err != nil {
		return nil
	}
	return []byte(b.String())
}

// adoptedFiles keeps each adopted Application as written: the bytes of
// its document when it is one in a file, else the object as YAML.
func (im *importer) adoptedFiles() []File {
	var out []File
	for _, a := range im.adopted {
		data := objectBytes(a.app.obj, a.app.set == nil && !a.app.rendered)
		header := "# " + comment(fmt.Sprintf("Application %q, adopted by platc import from %s.", a.app.name, at(im.nameRange(a.app)))) + "\n# platc syncs it in dependency order but does not generate it: keep applying this file.\n"
		out = append(out, File{Path: "adopted/" + a.name + ".yaml", Data: append([]byte(header), data...)})
	}
	return out
}

// documentBytes is the source text of the YAML document an object is,
// from its first line to the next document separator. It reads only the
// lines of that document (and the comments above it): splitting the
// whole file for each object took time in the file's size times its
// objects, 13 s for 4,000 adopted Applications in one 1.1 MB file.
func documentBytes(o *manifest.Object) []byte {
	f, b := o.File, o.File.Bytes
	if o.Node.Column != 1 || o.Node.Line < 1 {
		return nil // an item of a List, not a document
	}
	// lineAt is the line starting at byte i, with its newline, or "".
	lineAt := func(i int) string {
		if i >= len(b) {
			return ""
		}
		if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
			return string(b[i : i+j+1])
		}
		return string(b[i:])
	}
	start := f.Pos(o.Node.Line, 1).Byte
	if start >= len(b) || start == 0 && o.Node.Line > 1 {
		return nil
	}
	// Comments and the separator above the first key belong to the
	// document before, except comments directly above it.
	for line := o.Node.Line; line > 1; line-- {
		prev := f.Pos(line-1, 1).Byte
		if !strings.HasPrefix(strings.TrimSpace(lineAt(prev)), "#") {
			break
		}
		start = prev
	}
	end := start + len(lineAt(start))
	for end < len(b) && !strings.HasPrefix(lineAt(end), "---") {
		end += len(lineAt(end))
	}
	return b[start:end:end]
}

// check compiles and lints the platform as platc lint would, from where
// it will be written: the module is named by its place in OutDir, and
// lint reads the hook manifests the platform names from extra, held in
// memory, so diagnostics point at OutDir and nothing is staged on disk.
// A platform that does not compile is a platc bug.
func (im *importer) check(src []byte, extra []File) (hcl.Diagnostics, error) {
	out := cmp.Or(im.opts.OutDir, ".")
	mod, diags := lang.ParseSources([]lang.SourceFile{{Name: filepath.Join(out, PlatformFile), Bytes: src}})
	if diags.HasErrors() {
		return nil, fmt.Errorf("the imported platform does not parse (this is a bug in platc import): %s", diags.Error())
	}
	progs, cdiags := compiler.CompileAll(mod, compiler.Options{})
	if cdiags.HasErrors() {
		return nil, fmt.Errorf("the imported platform does not compile (this is a bug in platc import): %s", cdiags.Error())
	}
	var enabled []*lint.Rule
	for _, r := range rules.All() {
		if r.Default {
			enabled = append(enabled, r)
		}
	}
	files := memFS{}
	for _, f := range extra {
		files[f.Path] = f.Data
	}
	found, err := lint.Run(lint.Config{Module: mod, Programs: progs, Rules: enabled, Known: rules.Names(), Files: files})
	if err != nil {
		return nil, errors.Join(errors.New("linting the imported platform failed (this is a bug in platc)"), err)
	}
	return diag.Sort(append(cdiags, found...)), nil
}

// lintWhy explains, per rule, why platc lint reports what it reports on
// an imported platform.
var lintWhy = map[string]string{
	"redundant-dependency":           "the evidence gave this edge and a path that implies it; see the implied dependencies above",
	"floating-target-revision":       "kept from the input: the Application follows a branch; pin a tag or commit",
	"unpinned-chart-version":         "kept from the input: the Application names a version range; pin one release",
	"prune-on-stateful-app":          "kept from the input: the Application prunes automatically",
	"delete-volumes-on-stateful-app": "platc's advice on an imported setting",
	"slow-resource-without-class":    "platc's advice: the import sets no classes; give the app the class its resources need",
	"short-timeout-slow-class":       "platc's advice: the import sets no timeouts",
	"hardcoded-secret":               "kept from the input: a value in the Application's Helm values looks like a credential; move it to a Secret",
	"empty-stack":                    "an app-of-apps whose Applications were all skipped",
	"adopted-application":            "platc cannot express this Application, so the platform adopts it as it is (kept verbatim in adopted/); deploy orders it and waits for it",
}

// report builds the report, section by section.
func (im *importer) report(found hcl.Diagnostics) *Report {
	r := &Report{Platform: im.platformName, Roots: im.roots}
	r.Counts.Applications = len(im.apps)
	r.Counts.Apps = len(im.outApps)
	r.Counts.Stacks = len(im.stacks)
	r.Counts.Adopted = len(im.adopted)
	im.reportStructure(r)
	for _, h := range im.hooks {
		r.Hooks = append(r.Hooks, im.reportHook(r, h))
	}
	im.reportWaves(r)
	im.reportEdges(r)
	im.reportApps(r)
	r.Lint = reportLint(found)
	return r
}

// reportStructure lists the stacks, the app-of-apps platc replaces and
// the ApplicationSets.
func (im *importer) reportStructure(r *Report) {
	for _, s := range im.stacks {
		rs := ReportStack{Name: s.name, Application: s.app.name, At: at(im.nameRange(s.app))}
		for _, a := range s.apps {
			rs.Apps = append(rs.Apps, "app."+a.name)
		}
		r.Stacks = append(r.Stacks, rs)
	}
	for _, a := range im.replaced {
		ro := ReportObject{Object: fmt.Sprintf("Application %q", a.name), At: at(im.nameRange(a))}
		for _, o := range a.contents {
			if detect.IsApplication(o) || detect.IsApplicationSet(o) {
				continue
			}
			if _, hook := detect.HookOf(o); hook || o.Kind == "Job" && slices.ContainsFunc(im.hooks, func(h *hookOut) bool { return h.obj == o }) {
				continue // reported with the hooks
			}
			ro.Also = append(ro.Also, fmt.Sprintf("%s (%s)", detect.ObjectName(o), at(im.loc(o.File.Range(o.Node)))))
		}
		r.Replaced = append(r.Replaced, ro)
	}
	for _, s := range im.appSets {
		rs := ReportSet{Name: s.obj.Name, At: at(im.loc(s.obj.File.Range(s.obj.Node)))}
		for _, a := range s.generated {
			if a.out != nil {
				rs.Apps = append(rs.Apps, "app."+a.out.name)
			}
		}
		r.ApplicationSets = append(r.ApplicationSets, rs)
	}
}

// reportHook says what to do with one hook or Job, counting it and its
// unresolved waits into r.
func (im *importer) reportHook(r *Report, h *hookOut) ReportHook {
	rh := ReportHook{Object: detect.ObjectName(h.obj), At: at(h.at), Action: h.action, Purpose: h.purpose}
	if h.owner.valid() {
		rh.Owner = h.owner.String()
	}
	what := "Job"
	if h.hook {
		what = h.phase + " hook"
	}
	switch h.action {
	case "delete":
		rh.Why = fmt.Sprintf("delete it: this %s only waits for other apps, and the dependencies replace it", what)
		r.Counts.HooksDelete++
	case "declare":
		rh.Why = fmt.Sprintf("keep it, declared as hook %q with purpose %s", h.name, h.purpose)
		if len(h.waits) > 0 {
			rh.Why += "; delete its waits, which the dependencies replace"
			r.Counts.HooksDelete++
		}
	case "delete-wait":
		rh.Why = "delete its waits, which the dependencies replace; the rest of the Job is the app's own work"
		r.Counts.HooksDelete++
	default:
		rh.Why = fmt.Sprintf("review it: the import cannot tell what this %s is for, so it is not declared; declare it (purpose migration, schema or init) or delete it", what)
		if h.obj.File != nil && strings.Contains(h.obj.File.Path, " (rendered") {
			rh.Why = fmt.Sprintf("review it: this %s comes from a chart, so it cannot be declared by file; delete it if it orders apps", what)
		}
		if len(h.waits) > 0 {
			rh.Why += "; its waits must go in any case"
			r.Counts.HooksDelete++
		}
	}
	for _, wt := range h.waits {
		rw := ReportWait{At: at(wt.at), Text: wt.text}
		for _, t := range wt.targets {
			rt := ReportTarget{What: t.what, How: t.how, Note: t.note}
			if t.provider != nil {
				rt.Provider = "app." + t.provider.name
			} else {
				r.Unresolved = append(r.Unresolved, ReportUnresolved{Object: detect.ObjectName(h.obj), At: at(wt.at), Owner: rh.Owner, What: t.what, Note: t.note})
			}
			rw.Targets = append(rw.Targets, rt)
		}
		if len(wt.targets) == 0 {
			r.Unresolved = append(r.Unresolved, ReportUnresolved{Object: detect.ObjectName(h.obj), At: at(wt.at), Owner: rh.Owner, What: wt.text, Note: "the wait names nothing the import can attribute"})
		}
		rh.Waits = append(rh.Waits, rw)
	}
	return rh
}

// reportWaves lists the sync-wave annotations to remove.
func (im *importer) reportWaves(r *Report) {
	for _, a := range im.apps {
		if a.waveAnn != nil && (a.out != nil || a.isAppOfApps()) {
			what := fmt.Sprintf("Application %q", a.name)
			if a.set != nil {
				what = fmt.Sprintf("ApplicationSet %q (template)", a.set.Name)
			}
			wv := ReportWave{Object: what, At: at(im.loc(a.obj.File.Span(a.waveAnn.Key, a.waveAnn.Value))), Wave: a.waveAnn.Value.Value}
			if !slices.Contains(r.Waves, wv) {
				r.Waves = append(r.Waves, wv)
			}
		}
	}
	r.Counts.Waves = len(r.Waves)
}

// reportEdges lists every edge with its evidence, and the cycles.
func (im *importer) reportEdges(r *Report) {
	for _, e := range im.edges {
		re := im.reportEdge(e)
		r.Edges = append(r.Edges, re)
		r.Counts.Edges++
		if re.Review {
			r.Counts.Review++
		}
		if re.Disabled {
			r.Counts.Disabled++
		}
		if re.ImpliedBy != "" {
			r.Counts.Implied++
		}
	}
	for _, c := range im.cycles {
		rc := ReportCycle{Broken: c.broken.from.String() + " → " + c.broken.to.String()}
		for _, h := range c.hops {
			rh := ReportHop{From: "app." + h.from.name, To: "app." + h.to.name}
			for _, e := range h.edges {
				rh.Via = append(rh.Via, im.reportEdge(e))
			}
			rc.Hops = append(rc.Hops, rh)
		}
		r.Cycles = append(r.Cycles, rc)
	}
}

// reportApps lists apps without dependencies or known contents, the
// adopted apps and the dropped fields.
func (im *importer) reportApps(r *Report) {
	for _, a := range im.outApps {
		has := false
		for _, n := range []node{{app: a}, {stack: a.stack}} {
			if !n.valid() {
				continue
			}
			for _, e := range im.edgesFrom(n) {
				if !e.disabled && slices.ContainsFunc(e.to.apps(), func(b *appOut) bool { return b != a }) {
					has = true
				}
			}
		}
		if !has {
			r.NoDependencies = append(r.NoDependencies, "app."+a.name)
		}
		if !a.app.known && a.app.why != "" {
			r.Unknown = append(r.Unknown, ReportUnknown{App: "app." + a.name, Why: a.app.why})
		}
	}
	for _, a := range im.adopted {
		r.Adopted = append(r.Adopted, ReportAdopted{App: "app." + a.name, At: at(im.nameRange(a.app)), Reasons: a.adoptReason, File: "adopted/" + a.name + ".yaml"})
	}
	for _, d := range im.droppedFields {
		r.Dropped = append(r.Dropped, ReportDropped{App: "app." + d.app.name, Field: d.field, At: at(d.at), Why: d.why})
	}
}

// reportLint explains what platc lint says about the imported platform.
func reportLint(found hcl.Diagnostics) []ReportLint {
	var out []ReportLint
	for _, d := range found {
		rule := ""
		if e := diag.ExtraOf(d); e != nil {
			rule = e.Rule
		}
		sev := "warning"
		switch {
		case d.Severity == hcl.DiagError:
			sev = "error"
		case diag.IsNotice(d):
			sev = "notice"
		}
		l := ReportLint{Rule: rule, Severity: sev, Message: d.Summary, Why: cmp.Or(lintWhy[rule], "platc's judgement of the imported platform")}
		if d.Subject != nil {
			l.At = at(*d.Subject)
		}
		out = append(out, l)
	}
	return out
}

func (im *importer) reportEdge(e *edge) ReportEdge {
	re := ReportEdge{From: e.from.String(), To: e.to.String(), Kind: e.kind().String(), Confidence: e.confidence().String(),
		Review: e.review(), Disabled: e.disabled, ImpliedBy: e.impliedBy}
	for _, ev := range e.evidence {
		text := ev.text
		if ev.item != "" {
			text += " of " + ev.item
		}
		re.Evidence = append(re.Evidence, ReportEvidence{Kind: ev.kind.String(), Confidence: ev.confidence.String(), At: at(ev.at), Text: text})
	}
	return re
}
