package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/manifest"
)

// The round trip compares whole Applications, field by field, after
// normalizing what the migration changes on purpose (normalize): sync
// waves, platc's own labels and annotations, automated sync at creation
// (compared through the compiled program instead, INV-2), and Argo CD's
// defaults written out or left implicit.

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

// original reads an Application as written in the repository, as
// kubectl and Argo CD do (YAML 1.1 through sigs.k8s.io/yaml), normalized;
// automated says whether it asks for automated sync.
func original(t *testing.T, o *manifest.Object, argoNS string) (app map[string]any, auto [3]bool) {
	t.Helper()
	var text strings.Builder
	if err := yaml.NewEncoder(&text).Encode(o.Node); err != nil {
		t.Fatal(err)
	}
	if err := sigsyaml.Unmarshal([]byte(text.String()), &app); err != nil {
		t.Fatal(err)
	}
	if a, ok := dig(app, "spec", "syncPolicy", "automated").(map[string]any); ok && a["enabled"] != false {
		auto = [3]bool{true, a["prune"] == true, a["selfHeal"] == true}
	}
	md, _ := app["metadata"].(map[string]any)
	if md["namespace"] == nil {
		md["namespace"] = argoNS
	}
	spec, _ := app["spec"].(map[string]any)
	if spec["project"] == nil || spec["project"] == "" {
		spec["project"] = "default"
	}
	if d, ok := spec["destination"].(map[string]any); ok && d["name"] == "in-cluster" {
		delete(d, "name")
		d["server"] = inCluster
	}
	return normalize(t, app), auto
}

// generated reads the Application platc build wrote, normalized; it must
// not have automated sync at creation (INV-2).
func generated(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var app map[string]any
	if err := sigsyaml.Unmarshal(stripHeader(data), &app); err != nil {
		t.Fatal(err)
	}
	if a, ok := dig(app, "spec", "syncPolicy", "automated").(map[string]any); ok && a["enabled"] != false {
		t.Errorf("%v: generated with automated sync at creation (INV-2)", dig(app, "metadata", "name"))
	}
	return normalize(t, app)
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// normalize removes what the migration changes on purpose and writes
// Argo CD's defaults one way: a single source as a list of one, Helm
// values as a tree, no automated block, CreateNamespace=true unless
// said otherwise, durations as time.Duration strings, zero values left
// out.
func normalize(t *testing.T, app map[string]any) map[string]any {
	t.Helper()
	md, _ := app["metadata"].(map[string]any)
	for _, k := range []string{"labels", "annotations"} {
		if m, ok := md[k].(map[string]any); ok {
			for key := range m {
				if key == "argocd.argoproj.io/sync-wave" || platcMeta.MatchString(key) {
					delete(m, key)
				}
			}
		}
	}
	if fs, ok := md["finalizers"].([]any); ok {
		for i, f := range fs {
			if f == "resources-finalizer.argocd.argoproj.io/foreground" {
				fs[i] = "resources-finalizer.argocd.argoproj.io"
			}
		}
	}
	spec, _ := app["spec"].(map[string]any)
	if src, ok := spec["source"]; ok {
		spec["sources"] = []any{src}
		delete(spec, "source")
	}
	srcs, _ := spec["sources"].([]any)
	for _, x := range srcs {
		src, _ := x.(map[string]any)
		if src["chart"] == nil && src["targetRevision"] == nil {
			src["targetRevision"] = "HEAD"
		}
		if j, ok := dig(src, "directory", "jsonnet").(map[string]any); ok {
			for _, k := range []string{"extVars", "tlas"} {
				vs, _ := j[k].([]any)
				for _, x := range vs {
					normalizeJsonnetVar(t, x.(map[string]any))
				}
				// Variables are named: their order means nothing
				// to Jsonnet, and HCL writes them as a map.
				slices.SortStableFunc(vs, func(a, b any) int {
					return strings.Compare(fmt.Sprint(dig(a, "name")), fmt.Sprint(dig(b, "name")))
				})
			}
		}
		if h, ok := src["helm"].(map[string]any); ok {
			if v, ok := h["values"].(string); ok {
				if h["valuesObject"] == nil && strings.TrimSpace(v) != "" {
					var vals map[string]any
					if err := sigsyaml.Unmarshal([]byte(v), &vals); err != nil {
						t.Fatal(err)
					}
					h["valuesObject"] = vals
				}
				delete(h, "values")
			}
		}
	}
	if sp, ok := spec["syncPolicy"].(map[string]any); ok {
		delete(sp, "automated")
		if d, ok := dig(sp, "retry", "backoff").(map[string]any); ok {
			for _, k := range []string{"duration", "maxDuration"} {
				if s, ok := d[k].(string); ok {
					if _, err := strconv.Atoi(s); err == nil {
						s += "s"
					}
					dur, err := time.ParseDuration(s)
					if err != nil {
						t.Fatal(err)
					}
					d[k] = dur.String()
				}
			}
		}
	}
	opts, _ := dig(spec, "syncPolicy", "syncOptions").([]any)
	if !slices.ContainsFunc(opts, func(o any) bool { s, _ := o.(string); return strings.HasPrefix(s, "CreateNamespace=") }) {
		if spec["syncPolicy"] == nil {
			spec["syncPolicy"] = map[string]any{}
		}
		spec["syncPolicy"].(map[string]any)["syncOptions"] = append(opts, "CreateNamespace=true")
	}
	if info, ok := spec["info"].([]any); ok {
		slices.SortStableFunc(info, func(a, b any) int {
			return strings.Compare(fmt.Sprint(dig(a, "name")), fmt.Sprint(dig(b, "name")))
		})
	}
	return prune(jsonTree(t, app)).(map[string]any)
}

// normalizeJsonnetVar writes a Jsonnet variable that is JSON data one
// way: the import carries it as an HCL value, and the build writes it as
// compact JSON, a string as a plain variable (Jsonnet reads "\"a\"" with
// code: true and "a" without it alike).
func normalizeJsonnetVar(t *testing.T, v map[string]any) {
	t.Helper()
	if v["code"] != true {
		return
	}
	var data any
	if err := json.Unmarshal([]byte(v["value"].(string)), &data); err != nil {
		return // code, not data: compared as written
	}
	if s, ok := data.(string); ok {
		v["value"] = s
		delete(v, "code")
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	v["value"] = string(b)
}

// prune leaves out false, "", empty lists and maps, and null, which
// Argo CD reads as absent.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			e = prune(e)
			if e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		if len(x) == 0 {
			return nil
		}
		for i, e := range x {
			x[i] = prune(e)
		}
	case bool:
		if !x {
			return nil
		}
	case string:
		if x == "" {
			return nil
		}
	}
	return v
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
		{"parity", []string{"testdata/parity"}},
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
				want, auto := original(t, a.app.obj, out.im.argoNS)
				got := generated(t, data)
				ia := out.progs[0].App(a.name)
				if have := [3]bool{ia.Sync.Automated, ia.Sync.Prune, ia.Sync.SelfHeal}; have != auto {
					t.Errorf("%s: automated, prune, self-heal are %v after import, %v before", a.name, have, auto)
				}
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
