package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint/manifest"
)

// managed is what platc manages of an Application: what its HCL can say
// and its generated Application carries. Everything else (labels,
// annotations such as the sync waves the migration removes, finalizers)
// is outside it.
type managed struct {
	Name, Namespace            string
	Project                    string
	RepoURL, Chart, Path       string
	TargetRevision             string
	ReleaseName                string
	ValueFiles                 []string
	Values                     any
	DestServer, DestNamespace  string
	SyncOptions                []string
	Automated, Prune, SelfHeal bool
}

// imported is the result of importing paths and building the platform:
// the importer's state, and every environment's generated files.
type imported struct {
	im    *importer
	res   *Result
	dir   string
	progs []*ir.Program
	files map[string][]byte // the default environment's generated files
}

// importAndBuild imports paths into a temporary directory, then does
// what platc build does with it: parse, compile, run every emitter.
func importAndBuild(t *testing.T, paths ...string) imported {
	t.Helper()
	dir := t.TempDir()
	im := newImporter(Options{OutDir: dir})
	res, diags, err := im.run(paths)
	if err != nil {
		t.Fatal(err)
	}
	if diags.HasErrors() {
		t.Fatalf("import errors: %v", diags)
	}
	writeResult(t, dir, res)
	mod, pdiags := lang.Parse(dir)
	progs, cdiags := compiler.CompileAll(mod, compiler.Options{})
	if pdiags.HasErrors() || cdiags.HasErrors() {
		t.Fatalf("imported platform does not compile: %v %v", pdiags, cdiags)
	}
	out := imported{im: im, res: res, dir: dir, progs: progs, files: map[string][]byte{}}
	for _, e := range all.Emitters() {
		fs, err := e.Emit(progs[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			out.files[f.Path] = f.Data
		}
	}
	return out
}

// jsonTree normalizes a value the way Kubernetes reads it: through JSON.
func jsonTree(t *testing.T, v any) any {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// original reads what platc manages from an Application as written in
// the repository, with Argo CD's own defaults and value rules, and with
// the one change platc makes on purpose: CreateNamespace=true when the
// Application does not say (the app declares its namespace, and nothing
// else creates it).
func original(t *testing.T, o *manifest.Object, argoNS string) managed {
	t.Helper()
	// Read the object as kubectl and Argo CD do: YAML 1.1 through
	// sigs.k8s.io/yaml, into the API's JSON field names.
	var text strings.Builder
	if err := yaml.NewEncoder(&text).Encode(o.Node); err != nil {
		t.Fatal(err)
	}
	var app struct {
		Metadata struct{ Name, Namespace string }
		Spec     struct {
			Project string
			Source  struct {
				RepoURL, Chart, Path, TargetRevision string
				Helm                                 *struct {
					ReleaseName  string         `json:"releaseName"`
					ValueFiles   []string       `json:"valueFiles"`
					Values       string         `json:"values"`
					ValuesObject map[string]any `json:"valuesObject"`
				}
			}
			Destination struct{ Server, Name, Namespace string }
			SyncPolicy  *struct {
				Automated *struct {
					Prune    bool
					SelfHeal bool `json:"selfHeal"`
					Enabled  *bool
				}
				SyncOptions []string `json:"syncOptions"`
			} `json:"syncPolicy"`
		}
	}
	if err := sigsyaml.Unmarshal([]byte(text.String()), &app); err != nil {
		t.Fatal(err)
	}
	m := managed{
		Name: app.Metadata.Name, Namespace: app.Metadata.Namespace, Project: app.Spec.Project,
		RepoURL: app.Spec.Source.RepoURL, Chart: app.Spec.Source.Chart, Path: app.Spec.Source.Path,
		TargetRevision: app.Spec.Source.TargetRevision,
		DestServer:     app.Spec.Destination.Server, DestNamespace: app.Spec.Destination.Namespace,
	}
	if m.Namespace == "" {
		m.Namespace = argoNS
	}
	if m.Project == "" {
		m.Project = "default"
	}
	if m.Path != "" && m.TargetRevision == "" {
		m.TargetRevision = "HEAD"
	}
	if m.DestServer == "" && app.Spec.Destination.Name == "in-cluster" {
		m.DestServer = inCluster
	}
	if h := app.Spec.Source.Helm; h != nil {
		m.ReleaseName, m.ValueFiles = h.ReleaseName, h.ValueFiles
		// valuesObject wins over values (Argo CD's ValuesYAML).
		vals := h.ValuesObject
		if vals == nil && h.Values != "" {
			if err := sigsyaml.Unmarshal([]byte(h.Values), &vals); err != nil {
				t.Fatal(err)
			}
		}
		params := items(manifest.Lookup(o.Node, "spec", "source", "helm", "parameters"))
		if vals == nil && len(params) > 0 {
			vals = map[string]any{}
		}
		for _, p := range params {
			if err := setParameter(vals, p); err != nil {
				t.Fatal(err)
			}
		}
		if vals != nil {
			m.Values = jsonTree(t, vals)
		}
	}
	if sp := app.Spec.SyncPolicy; sp != nil {
		m.SyncOptions = sp.SyncOptions
		if a := sp.Automated; a != nil && (a.Enabled == nil || *a.Enabled) {
			m.Automated, m.Prune, m.SelfHeal = true, a.Prune, a.SelfHeal
		}
	}
	if !slices.ContainsFunc(m.SyncOptions, func(s string) bool { return strings.HasPrefix(s, "CreateNamespace=") }) {
		m.SyncOptions = append(m.SyncOptions, "CreateNamespace=true")
	}
	return m
}

// generated reads the same fields from the Application platc build
// wrote; automated sync comes from the compiled program, since INV-2
// keeps it off in the Application at creation.
func generated(t *testing.T, data []byte, a *ir.App) managed {
	t.Helper()
	var app struct {
		APIVersion, Kind string
		Metadata         struct {
			Name, Namespace string
			Labels          map[string]string
			Annotations     map[string]string // platc's own record (platc.io/...), not compared
		}
		Spec struct {
			Project string
			Source  struct {
				RepoURL, Chart, Path, TargetRevision string
				Helm                                 *struct {
					ReleaseName  string         `json:"releaseName"`
					ValueFiles   []string       `json:"valueFiles"`
					ValuesObject map[string]any `json:"valuesObject"`
				}
			}
			Destination struct{ Server, Namespace string }
			SyncPolicy  *struct {
				Automated   any      `json:"automated"`
				SyncOptions []string `json:"syncOptions"`
			} `json:"syncPolicy"`
		}
	}
	if err := sigsyaml.UnmarshalStrict(stripHeader(data), &app); err != nil {
		t.Fatal(err)
	}
	m := managed{
		Name: app.Metadata.Name, Namespace: app.Metadata.Namespace, Project: app.Spec.Project,
		RepoURL: app.Spec.Source.RepoURL, Chart: app.Spec.Source.Chart, Path: app.Spec.Source.Path,
		TargetRevision: app.Spec.Source.TargetRevision,
		DestServer:     app.Spec.Destination.Server, DestNamespace: app.Spec.Destination.Namespace,
		Automated: a.Sync.Automated, Prune: a.Sync.Prune, SelfHeal: a.Sync.SelfHeal,
	}
	if h := app.Spec.Source.Helm; h != nil {
		m.ReleaseName, m.ValueFiles = h.ReleaseName, h.ValueFiles
		if h.ValuesObject != nil {
			m.Values = jsonTree(t, h.ValuesObject)
		}
	}
	if sp := app.Spec.SyncPolicy; sp != nil {
		m.SyncOptions = sp.SyncOptions
		if sp.Automated != nil {
			t.Errorf("%s: generated with automated sync at creation (INV-2)", m.Name)
		}
	}
	return m
}

func stripHeader(b []byte) []byte {
	s, _ := strings.CutPrefix(string(b), emit.Header)
	return []byte(s)
}

// Importing and building gives back every Application of the input, in
// every field platc manages: the round trip of issue 14.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string
	}{
		{"acme", []string{"testdata/acme"}},
		{"adopted", []string{"testdata/adopted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := importAndBuild(t, tc.paths...)
			compared := 0
			for _, a := range out.im.outApps {
				path := "argocd/apps/" + a.name + ".yaml"
				data, ok := out.files[path]
				if a.adopted {
					if ok {
						t.Errorf("%s: adopted, yet platc generated %s", a.name, path)
					}
					continue
				}
				if !ok {
					t.Errorf("%s: no generated %s", a.name, path)
					continue
				}
				want := original(t, a.app.obj, out.im.argoNS)
				got := generated(t, data, out.progs[0].App(a.name))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("Application %q (%s) differs after import and build (-input +generated):\n%s", a.app.name, at(out.im.nameRange(a.app)), diff)
				}
				compared++
			}
			t.Logf("%d Applications compared, %d adopted", compared, len(out.im.adopted))
			if compared == 0 {
				t.Error("nothing compared")
			}
			// platc generates no Application the input did not have, but
			// its own.
			for p := range out.files {
				name, ok := strings.CutPrefix(p, "argocd/apps/")
				if !ok || strings.HasPrefix(name, "platc-") {
					continue
				}
				if !slices.ContainsFunc(out.im.outApps, func(a *appOut) bool { return !a.adopted && a.name+".yaml" == name }) {
					t.Errorf("generated %s, which no input Application gives", p)
				}
			}
		})
	}
}

// writeResult writes an import's platform and the files it names into
// dir, as platc import --out does.
func writeResult(t *testing.T, dir string, res *Result) {
	t.Helper()
	files := append([]File{{Path: PlatformFile, Data: res.HCL}}, res.Adopted...)
	for _, f := range append(files, res.Hooks...) {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
