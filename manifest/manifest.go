package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/gitroot"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/internal/safeyaml"
)

// MaxFileSize is the largest manifest file platc reads. Files are read
// only when they are regular files: a kustomization entry naming a
// device or a FIFO is reported, not read.
const MaxFileSize = 16 << 20

// A File is one YAML file that was read, with its bytes kept for source
// snippets and position conversion.
type File struct {
	// Path is the file's path as platc reached it: joined from the scan
	// directory, or from the kustomization that listed it.
	Path  string
	Bytes []byte
	// lines holds the byte offset at which each line starts.
	lines []int
}

// An Object is one Kubernetes object: a YAML document (or an item of a
// List) with apiVersion and kind.
type Object struct {
	File *File
	// Node is the object's mapping node.
	Node                              *yaml.Node
	APIVersion, Kind, Name, Namespace string
	// Via is the kustomization file that listed this object's file, or ""
	// when the file was found by walking the scan directory.
	Via string
	// KustomizeNamespace is the namespace the kustomizations that list
	// the object's file set (kustomize overrides the object's own with
	// it), or "".
	KustomizeNamespace string
}

// A Set is everything a scan found, files sorted by path and objects in
// file then document order.
type Set struct {
	Files   []*File
	Objects []*Object
}

// HCLFiles returns the files in the form the report package reads source
// snippets from.
func (s *Set) HCLFiles() map[string]*hcl.File {
	m := make(map[string]*hcl.File, len(s.Files))
	for _, f := range s.Files {
		m[f.Path] = &hcl.File{Bytes: f.Bytes}
	}
	return m
}

// kustomizationNames are the file names kustomize looks for in a
// directory, in its order of preference.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Load reads every YAML manifest under dir (recursively; hidden
// directories and the templates/ of Helm charts are skipped, since Helm
// templates are not YAML until rendered) and every file that a
// kustomization under dir lists as a resource or patch, wherever it lives.
//
// A missing or unreadable dir is an error diagnostic. A file that is not
// valid YAML, or a kustomization entry that does not exist, is a warning:
// the rest of the scan still runs.
func Load(dir string) (*Set, hcl.Diagnostics) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Scan directory not found",
			Detail:   fmt.Sprintf("Cannot open %s: %s. Pass --scan the directory that holds your plain manifests.", dir, safefile.Unwrap(err)),
		}}
	}
	if !info.IsDir() {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Scan path is not a directory",
			Detail:   fmt.Sprintf("%s is a file. Pass --scan a directory; every *.yaml and *.yml file under it is read.", dir),
		}}
	}
	l := NewLoader()
	l.Dir(dir, true)
	set, diags := l.Set()
	return set, diags
}

// A Loader reads manifests into one Set: directories, kustomizations and
// single files, each file once however it is reached.
type Loader struct {
	loader
}

// NewLoader returns an empty Loader.
func NewLoader() *Loader {
	return &Loader{loader{seen: map[string]bool{}, kustomizations: map[string]bool{}, objects: map[*File][]*Object{}}}
}

// Dir reads the YAML files of dir, and with recurse those of its
// subdirectories too, except hidden directories and the templates/ of
// Helm charts. Kustomizations found are followed after the walk, so a
// file both found and listed is attributed to the walk.
func (l *Loader) Dir(dir string, recurse bool) {
	l.root = repoRoot(dir)
	var kusts []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			l.diags = append(l.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Cannot read manifest directory",
				Detail:   fmt.Sprintf("Listing %s failed: %s. Its manifests were not scanned.", path, safefile.Unwrap(err)),
			})
			return nil
		}
		if d.IsDir() {
			if path == dir {
				return nil
			}
			if !recurse || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if d.Name() == "templates" && exists(filepath.Join(filepath.Dir(path), "Chart.yaml")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if slices.Contains(kustomizationNames, d.Name()) {
			kusts = append(kusts, path)
			return nil
		}
		if isYAML(d.Name()) {
			l.file(path, "", "", nil)
		}
		return nil
	})
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot scan manifests", Detail: err.Error()})
	}
	for _, k := range kusts {
		l.kustomization(k, "", nil)
	}
}

// Kustomization reads a kustomization file and what it lists, as
// kustomize build would find them (see Load). at, when not nil, is what
// names it, where a failure to read it is reported.
func (l *Loader) Kustomization(path string, at *hcl.Range) {
	l.root = repoRoot(filepath.Dir(path))
	l.kustomization(path, "", at)
}

// File reads one YAML file.
func (l *Loader) File(path string) { l.file(path, "", "", nil) }

// Confine makes the Loader read every file through t (platc import: the
// imported tree, whose author is a stranger), instead of following
// symbolic links anywhere and reading what kustomizations list anywhere
// in the Git work tree or working directory.
func (l *Loader) Confine(t *safefile.Tree) { l.tree = t }

// Set returns what was read: files sorted by path, objects in file then
// document order, and the diagnostics, sorted.
func (l *Loader) Set() (*Set, hcl.Diagnostics) {
	slices.SortFunc(l.set.Files, func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
	var objs []*Object
	for _, f := range l.set.Files {
		objs = append(objs, l.objects[f]...)
	}
	set := &Set{Files: l.set.Files, Objects: objs}
	return set, diag.Sort(l.diags)
}

// FindKustomization returns the kustomization file of dir, or "".
func FindKustomization(dir string) string {
	for _, name := range kustomizationNames {
		if p := filepath.Join(dir, name); exists(p) {
			return p
		}
	}
	return ""
}

// repoRoot is the Git work tree that holds dir (the nearest directory at
// or above it with a .git). Outside one (an exported tree), it is the
// working directory when dir is inside it, else dir itself.
func repoRoot(dir string) string {
	start, ok := gitroot.Find(dir)
	if ok {
		return start
	}
	if wd, err := os.Getwd(); err == nil && safefile.Within(wd, start) {
		return wd
	}
	return start
}

type loader struct {
	// root is the directory files listed by kustomizations must be in.
	root string
	// tree, when set, is the only way files are read (Confine).
	tree           *safefile.Tree
	set            Set
	objects        map[*File][]*Object
	seen           map[string]bool // absolute paths of files read
	kustomizations map[string]bool // absolute paths of kustomizations read
	diags          hcl.Diagnostics
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// key identifies a file however it was reached, so a file found by the
// walk and listed by a kustomization is read once.
func key(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// read reads a file, through the tree when the Loader is confined.
func (l *loader) read(path string) ([]byte, error) {
	if l.tree != nil {
		return l.tree.Read(path)
	}
	return safefile.Read(path, MaxFileSize)
}

// inside reports whether a file a kustomization lists may be read.
func (l *loader) inside(path string) bool {
	if l.tree != nil {
		return l.tree.Contains(path)
	}
	return safefile.Within(l.root, path)
}

// file reads one YAML file and records its objects. via is the
// kustomization that lists it, ns the namespace that kustomization (or
// one that includes it) sets, at where it lists it (nil for a file found
// by walking).
func (l *loader) file(path, via, ns string, at *hcl.Range) {
	k := key(path)
	if l.seen[k] {
		return
	}
	l.seen[k] = true
	b, err := l.read(path)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Cannot read manifest",
			Detail:   fmt.Sprintf("Reading %s failed: %s. It was not scanned.", path, safefile.Unwrap(err)),
			Subject:  at,
		})
		return
	}
	f := NewFile(path, b)
	l.set.Files = append(l.set.Files, f)
	docs, d := f.Documents()
	if d != nil {
		l.diags = append(l.diags, d)
	}
	for _, doc := range docs {
		for _, o := range objectsOf(f, doc, via) {
			o.KustomizeNamespace = ns
			l.objects[f] = append(l.objects[f], o)
		}
	}
}

// NewFile wraps bytes read from path.
func NewFile(path string, b []byte) *File {
	f := &File{Path: path, Bytes: b, lines: []int{0}}
	for i, c := range b {
		if c == '\n' {
			f.lines = append(f.lines, i+1)
		}
	}
	return f
}

// AliasesRefused is the summary of the warning about a document whose
// aliases expand too far.
const AliasesRefused = "Manifest aliases refused"

// Documents parses every YAML document of the file with platc's one
// decoder for untrusted YAML (internal/safeyaml), which refuses aliases
// that expand a document too far. On an error it returns the documents
// before it and a warning at the error's line.
func (f *File) Documents() ([]*yaml.Node, *hcl.Diagnostic) {
	if !utf8.Valid(f.Bytes) {
		r := f.LineRange(1)
		return nil, diag.Warning(r, "Unreadable manifest",
			fmt.Sprintf("%s is not UTF-8 text, so it was not scanned. Keep only YAML manifests under the scanned directory.", f.Path))
	}
	docs, err := safeyaml.Documents(f.Bytes)
	var ye *safeyaml.Error
	if !errors.As(err, &ye) {
		return docs, nil
	}
	r := f.LineRange(ye.Line)
	if ye.Alias {
		if ye.Column > 0 {
			r.Start = f.Pos(ye.Line, ye.Column)
		}
		return docs, diag.Warning(r, AliasesRefused,
			fmt.Sprintf("In %s, %s. The rest of the file was not scanned. Write the repeated values out, or use fewer aliases of aliases.", f.Path, ye.Msg))
	}
	return docs, diag.Warning(r, "Unreadable manifest",
		fmt.Sprintf("%s is not valid YAML (%s), so the rest of it was not scanned. Fix the YAML, or move the file out of the scanned directory if it is a template.", f.Path, ye.Msg))
}

// objectsOf returns the Kubernetes objects of one document: the document
// itself, or the items of a List.
func objectsOf(f *File, n *yaml.Node, via string) []*Object {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	kind := Str(Lookup(n, "kind"))
	if strings.HasSuffix(kind, "List") {
		if items := Lookup(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			var out []*Object
			for _, it := range items.Content {
				out = append(out, objectsOf(f, it, via)...)
			}
			return out
		}
	}
	api := Str(Lookup(n, "apiVersion"))
	if kind == "" || api == "" {
		return nil // values files, Chart.yaml and the like
	}
	return []*Object{{
		File:       f,
		Node:       n,
		APIVersion: api,
		Kind:       kind,
		Name:       Str(Lookup(n, "metadata", "name")),
		Namespace:  Str(Lookup(n, "metadata", "namespace")),
		Via:        via,
	}}
}

// kustomization reads a kustomization file and loads what it lists:
// resources, bases and components (files, or directories with their own
// kustomization) and patch files. Remote resources are skipped: platc
// reads nothing from the network.
func (l *loader) kustomization(path, outerNS string, at *hcl.Range) {
	k := key(path)
	if l.kustomizations[k] {
		return
	}
	l.kustomizations[k] = true
	b, err := l.read(path)
	if err != nil {
		l.diags = append(l.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Cannot read kustomization",
			Detail: fmt.Sprintf("Reading %s failed: %s. What it lists was not scanned.", path, safefile.Unwrap(err)), Subject: at})
		return
	}
	f := NewFile(path, b)
	docs, d := f.Documents()
	if d != nil {
		l.diags = append(l.diags, d)
	}
	if len(docs) == 0 {
		return
	}
	root := Resolve(docs[0])
	dir := filepath.Dir(path)
	// kustomize applies a kustomization's namespace to everything it
	// includes, and an including kustomization's namespace last.
	ns := outerNS
	if ns == "" {
		ns = Str(Lookup(root, "namespace"))
	}
	var entries []*yaml.Node
	for _, field := range []string{"resources", "bases", "components", "patchesStrategicMerge"} {
		if seq := Lookup(root, field); seq != nil && seq.Kind == yaml.SequenceNode {
			entries = append(entries, seq.Content...)
		}
	}
	if seq := Lookup(root, "patches"); seq != nil && seq.Kind == yaml.SequenceNode {
		for _, p := range seq.Content {
			if pn := Lookup(p, "path"); pn != nil {
				entries = append(entries, pn)
			}
		}
	}
	for _, e := range entries {
		e = Resolve(e)
		if e == nil || e.Kind != yaml.ScalarNode {
			continue // an inline patch, not a file
		}
		ref := e.Value
		if remote(ref) {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(ref))
		info, err := os.Stat(target)
		if err != nil {
			l.diags = append(l.diags, diag.Warning(f.Range(e), "Kustomization entry not found",
				fmt.Sprintf("%s lists %q, but %s does not exist, so kustomize build would fail too. Fix the path or remove the entry.", path, ref, target)))
			continue
		}
		// Overlays list files of their bases (../../base/x.yaml), but
		// nothing outside the repository that holds the scanned directory
		// (the imported tree, for import) is read, file or directory: an
		// entry such as /proc/self/environ would otherwise be read and
		// quoted in a "not valid YAML" warning.
		if !l.inside(target) {
			where := l.root
			if l.tree != nil {
				where = "the imported tree"
			}
			l.diags = append(l.diags, diag.Warning(f.Range(e), "Kustomization entry outside the repository",
				fmt.Sprintf("%s lists %q, which is outside %s (as written or through a symbolic link); platc does not read it. List files of the repository only, or import the repository's top directory.", path, ref, where)))
			continue
		}
		if !info.IsDir() {
			r := f.Range(e)
			l.file(target, path, ns, &r)
			continue
		}
		if p := FindKustomization(target); p != "" {
			r := f.Range(e)
			l.kustomization(p, ns, &r)
		} else {
			l.diags = append(l.diags, diag.Warning(f.Range(e), "Kustomization entry without a kustomization",
				fmt.Sprintf("%s lists the directory %q, which has no kustomization.yaml, so kustomize build would fail. List its files instead, or add a kustomization.", path, ref)))
		}
	}
}

// remote reports whether a kustomization entry names something fetched
// over the network (a URL or a go-getter style repository address).
func remote(ref string) bool {
	return strings.Contains(ref, "://") || strings.Contains(ref, "?ref=") ||
		strings.HasPrefix(ref, "github.com/") || strings.HasPrefix(ref, "git@") || strings.HasPrefix(ref, "gitlab.com/")
}

// Parse reads the objects of one YAML file. A syntax error comes back as
// a warning diagnostic together with the objects before it.
func Parse(path string, b []byte) (*File, []*Object, *hcl.Diagnostic) {
	f := NewFile(path, b)
	docs, d := f.Documents()
	var objs []*Object
	for _, doc := range docs {
		objs = append(objs, objectsOf(f, doc, "")...)
	}
	return f, objs, d
}
