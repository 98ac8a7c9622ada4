package importer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-jsonnet"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/manifest"
)

// Helm parameters are applied as Argo CD applies them: its
// cleanSetParameters, then helm --set (or --set-string).
func TestSetParameter(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		force       bool
		want        map[string]any
	}{
		{"a.b", "1", false, map[string]any{"a": map[string]any{"b": int64(1)}}},
		{"enabled", "true", false, map[string]any{"enabled": true}},
		{"enabled", "true", true, map[string]any{"enabled": "true"}},
		{"tag", "1.20", true, map[string]any{"tag": "1.20"}},
		// A comma is part of the value, unless the value is a Helm list.
		{"hosts", "a.example.com,b.example.com", false, map[string]any{"hosts": "a.example.com,b.example.com"}},
		{"args", "{--a,--b}", false, map[string]any{"args": []any{"--a", "--b"}}},
		// A comma escaped already stays escaped once, as in Argo CD.
		{"csv", `x\,y`, false, map[string]any{"csv": "x,y"}},
		{"empty", "null", false, map[string]any{"empty": nil}},
	} {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			src := "name: " + quote(tc.name) + "\nvalue: " + quote(tc.value) + "\n"
			if tc.force {
				src += "forceString: true\n"
			}
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(src), &n); err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			if err := setParameter(got, n.Content[0]); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Values written into HCL come back as the same data, whatever they
// hold: HCL template syntax in a string stays text.
func TestValuesToHCL(t *testing.T) {
	vals := map[string]any{
		"template":      "${remote_addr} %{ if true }yes%{ endif } $${x}",
		"quote":         `say "hi"\n`,
		"non-ident.key": "v",
		"n":             int64(9007199254740993),
		"f":             0.25,
		"list":          []any{"a", int64(1), true, nil, map[string]any{}},
		"empty":         map[string]any{},
	}
	src := "v = " + string(hclwriteValue(vals))
	f, diags := hclsyntax.ParseConfig([]byte(src), "v.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags, src)
	}
	attrs, _ := f.Body.JustAttributes()
	got, diags := attrs["v"].Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if !got.Equals(toCty(vals)).True() {
		t.Errorf("HCL gives back %#v, want %#v\n%s", got, toCty(vals), src)
	}
	if s := got.GetAttr("template"); s.AsString() != vals["template"] {
		t.Errorf("template = %q", s.AsString())
	}
	if str("${x}") != `"$${x}"` || str("%{x}") != `"%%{x}"` {
		t.Errorf("str escapes: %s %s", str("${x}"), str("%{x}"))
	}
}

func hclwriteValue(v any) []byte {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(string(tokensFor(toCty(v)))))
	return []byte(b.String())
}

func tokensFor(v cty.Value) []byte { return []byte(valueText(v)) }

func TestHCLName(t *testing.T) {
	for in, want := range map[string]string{
		"metallb":               "metallb",
		"shop.frontend":         "shop-frontend",
		"2fa-service":           "app-2fa-service",
		"Team_Payments":         "team-payments",
		strings.Repeat("a", 70): strings.Repeat("a", 63),
	} {
		if got := hclName(in); got != want {
			t.Errorf("hclName(%q) = %q, want %q", in, got, want)
		}
	}
	used := map[string]bool{}
	if a, b := unique("web", used), unique("web", used); a != "web" || b != "web-2" {
		t.Errorf("unique: %q %q", a, b)
	}
	if got := stackName("storage-stack"); got != "storage" {
		t.Errorf("stackName = %q", got)
	}
}

// A rendered line maps to the template line that wrote it, ranges
// included; lines an include wrote map to the line before.
func TestMapLines(t *testing.T) {
	tmpl := strings.Split(`{{- range .Values.apps }}
---
kind: Application
metadata:
  name: {{ .name }}
  labels:
    {{- include "labels" . | nindent 4 }}
spec:
  wave: {{ .wave | quote }}
{{- end }}`, "\n")
	out := strings.Split(`---
kind: Application
metadata:
  name: a
  labels:
    x: y
spec:
  wave: "1"
---
kind: Application
metadata:
  name: b
  labels:
    x: y
spec:
  wave: "2"`, "\n")
	want := []int{2, 3, 4, 5, 6, 6, 8, 9, 2, 3, 4, 5, 6, 6, 8, 9}
	if diff := cmp.Diff(want, mapLines(tmpl, out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSubstitute(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("metadata:\n  name: 'team-{{ path.basename }}-{{missing}}'\nspec:\n  path: '{{path}}'\n  seg: '{{path[1]}}'\n"), &doc); err != nil {
		t.Fatal(err)
	}
	f := manifest.NewFile("set.yaml", nil)
	params := map[string]any{"path": map[string]any{"path": "apps/teams/pay", "basename": "pay", "basenameNormalized": "pay", "segments": []string{"apps", "teams", "pay"}}}
	fast := func(s string) (string, error) { return fastRender(s, flatParams(params)), nil }
	gotmpl := func(s string) (string, error) { return goRender(s, params, true, &budgetWriter{left: sandboxOutput}) }
	n, err := substitute(f, doc.Content[0], fast)
	if err != nil {
		t.Fatal(err.msg)
	}
	for path, want := range map[string]string{"metadata.name": "team-pay-{{missing}}", "spec.path": "apps/teams/pay", "spec.seg": "teams"} {
		if got := manifest.Str(manifest.Lookup(n, strings.Split(path, ".")...)); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if err := yaml.Unmarshal([]byte("name: '{{ .nope }}'\n"), &doc); err != nil {
		t.Fatal(err)
	}
	if _, err := substitute(f, doc.Content[0], gotmpl); err == nil {
		t.Error("missingkey=error accepted an unknown key")
	}
	if err := yaml.Unmarshal([]byte("name: '{{ .path.basename | upper }}'\n"), &doc); err != nil {
		t.Fatal(err)
	}
	n, err = substitute(f, doc.Content[0], gotmpl)
	if err != nil || manifest.Str(manifest.Lookup(n, "name")) != "PAY" {
		t.Errorf("go template with sprig: %v %v", n, err)
	}
}

func TestNodeValue(t *testing.T) {
	for src, want := range map[string]any{
		"a: 1":          map[string]any{"a": int64(1)},
		"a: 2024-01-01": map[string]any{"a": "2024-01-01"},
		// YAML 1.1, as kubectl, Argo CD and Helm read it.
		"a: [1.5, ~, yes, off]":      map[string]any{"a": []any{1.5, nil, true, false}},
		"1: x":                       map[string]any{"1": "x"},
		"a: &x {b: 1}\nc:\n  <<: *x": map[string]any{"a": map[string]any{"b": int64(1)}, "c": map[string]any{"b": int64(1)}},
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		got, err := nodeValue(doc.Content[0])
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", src, diff)
		}
	}
	for _, src := range []string{"a: .inf"} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := nodeValue(doc.Content[0]); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

// Jobs that only wait are deleted; one that also does its own work keeps
// it and loses its waits.
func TestWaitOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) *manifest.Object {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, objs, d := manifest.Parse(p, []byte(src))
		if d != nil || len(objs) != 1 {
			t.Fatalf("%v", d)
		}
		return objs[0]
	}
	job := func(script string) string {
		return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: a\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: postgres:16\n          command: [sh, -c]\n          args:\n            - |\n" + script
	}
	only := write("only.yaml", job("              set -e\n              until pg_isready -h db.data; do\n                echo waiting; sleep 2\n              done\n"))
	mixed := write("mixed.yaml", job("              until pg_isready -h db.data; do sleep 2; done\n              psql -h db.data -f /seed.sql\n"))
	for _, tc := range []struct {
		o    *manifest.Object
		want bool
	}{{only, true}, {mixed, false}} {
		if got := waitOnly(tc.o, waitsOf(tc.o)); got != tc.want {
			t.Errorf("%s: waitOnly = %v, want %v", tc.o.File.Path, got, tc.want)
		}
	}
}

// The compiler judges what the importer carries over: an Application
// whose values it refuses is adopted with the compiler's reason, the
// others in the same chunk are imported, and the platform compiles.
func TestTrialAdoptsWhatTheCompilerRefuses(t *testing.T) {
	dir := t.TempDir()
	app := func(name, extra string) string {
		return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ` + name + `
  namespace: argocd
` + extra + `spec:
  project: default
  source:
    repoURL: https://git.example.com/x.git
    targetRevision: v1.0.0
    path: ` + name + `
  destination:
    server: https://kubernetes.default.svc
    namespace: ` + name + `
`
	}
	files := map[string]string{
		"root.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: root
  namespace: argocd
spec:
  source:
    repoURL: https://git.example.com/x.git
    targetRevision: v1.0.0
    path: apps
  destination:
    server: https://kubernetes.default.svc
    namespace: argocd
`,
		"apps/a.yaml": app("good", "  annotations:\n    example.com/owner: team-a\n"),
		"apps/b.yaml": app("hooked", "  annotations:\n    argocd.argoproj.io/hook: PreSync\n"),
		"apps/c.yaml": app("templated", "  labels:\n    example.com/team: \"{{team}}\"\n"),
	}
	for p, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, diags, err := Import([]string{dir}, Options{OutDir: t.TempDir()})
	if err != nil || diags.HasErrors() {
		t.Fatalf("import: %v %v", err, diags)
	}
	got := map[string]string{}
	for _, a := range res.Report.Adopted {
		got[a.App] = strings.Join(a.Reasons, "; ")
	}
	if len(got) != 2 || !strings.Contains(got["app.hooked"], "Forbidden annotation") || !strings.Contains(got["app.templated"], "Invalid label value") {
		t.Errorf("adopted: %v", got)
	}
	if !strings.Contains(string(res.HCL), `"example.com/owner" = "team-a"`) {
		t.Errorf("the good app lost its annotation:\n%s", res.HCL)
	}
}

// An adopted app's manifests are analysed like a generated one's (issue
// 22): its wait hook becomes a dependency with its evidence and is
// listed for deletion, and the kinds it uses whose CRD another app
// provides order it after that app.
func TestAdoptedAppsManifestsAnalysed(t *testing.T) {
	dir := t.TempDir()
	app := func(name, extra string) string {
		return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ` + name + `
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://git.example.com/x.git
    targetRevision: v1.0.0
    path: ` + name + `
` + extra + `  destination:
    server: https://kubernetes.default.svc
    namespace: ` + name + `
`
	}
	files := map[string]string{
		"root.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: root
  namespace: argocd
spec:
  source:
    repoURL: https://git.example.com/x.git
    targetRevision: v1.0.0
    path: apps
  destination:
    server: https://kubernetes.default.svc
    namespace: argocd
`,
		"apps/db.yaml": app("db", ""),
		// A Jsonnet variable that is code: platc cannot express it.
		"apps/legacy.yaml": app("legacy", "    directory:\n      jsonnet:\n        tlas:\n          - name: n\n            value: \"1 + 1\"\n            code: true\n"),
		"db/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: db
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres:16}]
`,
		"db/crd.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: schemas.db.example.com
spec:
  group: db.example.com
  names: {kind: Schema, plural: schemas}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`,
		"legacy/wait.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: wait-db
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: wait
          image: bitnami/kubectl:1.31
          args: ["kubectl wait --for=condition=Available deployment/db -n db --timeout=600s"]
`,
		"legacy/schema.yaml": `apiVersion: db.example.com/v1
kind: Schema
metadata:
  name: legacy
`,
	}
	for p, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, diags, err := Import([]string{dir}, Options{OutDir: t.TempDir()})
	if err != nil || diags.HasErrors() {
		t.Fatalf("import: %v %v", err, diags)
	}
	if len(res.Report.Adopted) != 1 || res.Report.Adopted[0].App != "app.legacy" {
		t.Fatalf("adopted: %+v", res.Report.Adopted)
	}
	kinds := map[string]bool{}
	for _, e := range res.Report.Edges {
		if e.From == "app.legacy" && e.To == "app.db" {
			kinds[e.Kind] = true
			for _, ev := range e.Evidence {
				kinds[ev.Kind] = true
			}
		}
	}
	if !kinds["wait"] || !kinds["crd"] {
		t.Errorf("edges of the adopted app: want wait and crd evidence for app.legacy -> app.db, got %v in %+v", kinds, res.Report.Edges)
	}
	found := false
	for _, h := range res.Report.Hooks {
		if h.Owner == "app.legacy" && strings.Contains(h.Object, "wait-db") && h.Action == "delete" {
			found = true
		}
	}
	if !found {
		t.Errorf("the adopted app's wait hook is not listed for deletion: %+v", res.Report.Hooks)
	}
}

// A Jsonnet variable with code: true is carried as data only when it is
// data: Jsonnet itself (go-jsonnet, the library Argo CD's repo server
// evaluates with) gives the same value for the original text as the
// importer read. Anything else is code, and adopted.
func TestJsonnetData(t *testing.T) {
	for _, tc := range []struct {
		text, why string
	}{
		{`3`, ""},
		{`-2.5e3`, ""},
		{`"storefront"`, ""},
		{`null`, ""},
		{` {"a": [1, "x", true, null, {}], "b": {"c": []}} `, ""},
		{`"\u0041 \n"`, ""},
		{`1 + 1`, "not JSON data"},
		{`{a: 1}`, "not JSON data"},
		{`[1,]`, "not JSON data"},
		{`{} {}`, "not JSON data"},
		{`std.extVar("x")`, "not JSON data"},
		{`{"a": 1, "a": 2}`, "not JSON data"},
		{`{"app": "$ARGOCD_APP_NAME"}`, "substituted"},
		{strings.Repeat("[", 70) + strings.Repeat("]", 70), "not JSON data"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			v, why := jsonnetData(tc.text)
			if tc.why == "" && why != "" || tc.why != "" && !strings.Contains(why, tc.why) {
				t.Fatalf("jsonnetData(%q) says %q, want %q", tc.text, why, tc.why)
			}
			if why != "" {
				return
			}
			b, err := ctyjson.Marshal(v, v.Type())
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			out, err := jsonnet.MakeVM().EvaluateAnonymousSnippet("tla", tc.text)
			if err != nil {
				t.Fatalf("Jsonnet refuses %q, which the importer took for data: %v", tc.text, err)
			}
			var want any
			if err := json.Unmarshal([]byte(out), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%q: the importer's value differs from Jsonnet's (-jsonnet +importer):\n%s", tc.text, diff)
			}
		})
	}
	// Jsonnet refuses a duplicate key, so such text is no JSON data
	// Jsonnet would read.
	if _, err := jsonnet.MakeVM().EvaluateAnonymousSnippet("tla", `{"a": 1, "a": 2}`); err == nil {
		t.Error("Jsonnet accepts a duplicate key; the importer need not refuse it")
	}
}
