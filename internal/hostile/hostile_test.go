package hostile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/util/template"
	"github.com/argoproj/argo-workflows/v3/workflow/common"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/health/luavm"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/report"
)

const corpus = "../../testdata/hostile"

// A payload is one line of payloads.txt: as written in an HCL string, and
// as the string's value.
type payload struct {
	name, hcl, value string
}

func payloads(t *testing.T) []payload {
	t.Helper()
	f, err := os.Open(filepath.Join(corpus, "payloads.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []payload
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, text, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("payloads.txt: %q has no tab", line)
		}
		out = append(out, payload{name: name, hcl: text, value: hclString(t, text)})
	}
	return out
}

// hclString is the value of an HCL string literal written as s.
func hclString(t *testing.T, s string) string {
	t.Helper()
	e, diags := hclsyntax.ParseExpression([]byte(`"`+s+`"`), "payload", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("payload %q: %s", s, diags)
	}
	v, diags := e.Value(nil)
	if diags.HasErrors() {
		t.Fatalf("payload %q: %s", s, diags)
	}
	return v.AsString()
}

// marker is a field of platform.hcl: «id:value».
var marker = regexp.MustCompile(`«([a-z0-9_.]+):([^»]*)»`)

type field struct {
	id, value string
	line      int
}

// fields lists platform.hcl's fields in order, with their lines.
func fields(t *testing.T, src string) []field {
	t.Helper()
	var out []field
	for i, line := range strings.Split(src, "\n") {
		for _, m := range marker.FindAllStringSubmatch(line, -1) {
			out = append(out, field{id: m[1], value: m[2], line: i + 1})
		}
	}
	return out
}

// render writes platform.hcl with extra appended to field id's value.
func render(src, id, extra string) string {
	return marker.ReplaceAllStringFunc(src, func(m string) string {
		s := marker.FindStringSubmatch(m)
		if s[1] == id {
			return s[2] + extra
		}
		return s[2]
	})
}

// build compiles the platform in dir as platc build does and runs every
// emitter; files are keyed "<env>/<path>".
func build(t *testing.T, dir string) (map[string][]byte, []*ir.Program, hcl.Diagnostics, map[string]*hcl.File) {
	t.Helper()
	m, diags := lang.Parse(dir)
	var files map[string]*hcl.File
	if m != nil {
		files = m.Files
	}
	if diags.HasErrors() {
		return nil, nil, diags, files
	}
	progs, diags := compiler.CompileAll(m, compiler.Options{})
	if diags.HasErrors() {
		return nil, nil, diags, files
	}
	out := map[string][]byte{}
	for _, p := range progs {
		for _, e := range all.Emitters() {
			fs, err := e.Emit(p)
			if err != nil {
				t.Fatalf("emitter %s: %v (a platc bug: the compiler accepted what an emitter cannot write)", e.Name(), err)
			}
			for _, f := range fs {
				out[p.Env.Name+"/"+f.Path] = f.Data
			}
		}
	}
	return out, progs, nil, files
}

// setup copies the corpus's auxiliary files and writes platform.hcl.
func setup(t *testing.T, platform string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"apps/db/migrate.yaml", "testdata/widget.yaml"} {
		b, err := os.ReadFile(filepath.Join(corpus, p))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "platform.hcl"), []byte(platform), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// facts is what the checks compare between a hostile build and the
// benign one.
type facts struct {
	shape    map[string][]string // file → every key path, in order
	tags     map[string]bool     // Argo template tags anywhere
	rbacRows []string            // policy.csv records, with the project names generalised
}

// TestPayloads is the corpus: every payload in every field, each one
// refused at its field or inert in every output.
func TestPayloads(t *testing.T) {
	srcBytes, err := os.ReadFile(filepath.Join(corpus, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(srcBytes)
	fs, ps := fields(t, src), payloads(t)
	if len(fs) < 50 || len(ps) < 20 {
		t.Fatalf("%d fields and %d payloads: the corpus lost cases", len(fs), len(ps))
	}
	benignFiles, _, diags, _ := build(t, setup(t, render(src, "", "")))
	if diags.HasErrors() {
		t.Fatalf("the benign platform does not build: %s", diags)
	}
	base := check(t, "benign", benignFiles, nil, "", "")
	refused, inert := 0, 0
	for _, f := range fs {
		for _, p := range ps {
			name := f.id + "/" + p.name
			t.Run(name, func(t *testing.T) {
				dir := setup(t, render(src, f.id, p.hcl))
				files, _, diags, parsed := build(t, dir)
				if diags.HasErrors() {
					refused++
					located(t, diags, parsed, filepath.Join(dir, "platform.hcl"), f.line)
					return
				}
				inert++
				check(t, name, files, &base, f.value, f.value+p.value)
				if f.id == "health.message" {
					luaMessage(t, files, f.value+p.value)
				}
			})
		}
	}
	t.Logf("%d cases (%d fields × %d payloads): %d refused at their field, %d built with the payload inert", len(fs)*len(ps), len(fs), len(ps), refused, inert)
}

// located checks that diags refuse the case at the field: an error at
// its line of path, rendered with the file, line and column.
func located(t *testing.T, diags hcl.Diagnostics, files map[string]*hcl.File, path string, line int) {
	t.Helper()
	var text bytes.Buffer
	if err := report.Text(&text, files, diags, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range diags {
		if s := d.Subject; d.Severity == hcl.DiagError && s != nil && s.Filename == path && s.Start.Line == line && s.Start.Column > 0 {
			if !strings.Contains(text.String(), fmt.Sprintf("on %s:%d:%d", path, line, s.Start.Column)) {
				t.Errorf("the text output does not show %s:%d:%d:\n%s", path, line, s.Start.Column, text.String())
			}
			return
		}
	}
	t.Errorf("refused, but not at line %d:\n%s", line, text.String())
}

// check parses every emitted file and returns its facts; given the
// benign build's facts, it also checks the hostile build against them.
// benign and hostile are the field's value in each build.
func check(t *testing.T, name string, files map[string][]byte, base *facts, benign, hostile string) facts {
	t.Helper()
	f := facts{shape: map[string][]string{}, tags: map[string]bool{}}
	wfts, cwfts := wftGetter{}, cwftGetter{}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		data := files[p]
		if !bytes.HasPrefix(data, []byte(emit.Header)) {
			t.Errorf("%s does not start with the platc header", p)
		}
		if !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			continue
		}
		// Strict YAML: every document parses, with no duplicate keys.
		dec := yaml.NewDecoder(bytes.NewReader(data))
		var docs []*yaml.Node
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if err != nil {
				if err.Error() != "EOF" {
					t.Errorf("%s: not valid YAML: %v", p, err)
				}
				break
			}
			docs = append(docs, &n)
		}
		for _, d := range docs {
			f.shape[p] = append(f.shape[p], "---")
			keyPaths(d, "", func(kp string) { f.shape[p] = append(f.shape[p], kp) })
		}
		if strings.Contains(p, "/ansible/inventories/") && hostile != "" {
			for _, d := range docs {
				scalars(d, func(n *yaml.Node) {
					if strings.Contains(n.Value, hostile) && n.Tag != "!unsafe" {
						t.Errorf("%s: %q reaches Ansible without !unsafe", p, n.Value)
					}
				})
			}
		}
		if strings.Contains(p, "/workflows/") && !strings.HasSuffix(p, "/rbac.yaml") {
			for i, r := range common.ParseObjects(data, true) {
				if r.Err != nil {
					t.Errorf("%s: object %d does not decode strictly: %v", p, i, r.Err)
					continue
				}
				j, err := json.Marshal(r.Object)
				if err != nil {
					t.Fatal(err)
				}
				// Argo's own template scanner finds every {{...}} Argo will
				// substitute.
				tags := map[string]any{}
				if err := template.Validate(string(j), func(tag string) error { f.tags[tag], tags[tag] = true, "v"; return nil }); err != nil {
					t.Errorf("%s: Argo cannot read the templates of object %d: %v", p, i, err)
				}
				// And Argo's substitution itself, every tag given a value:
				// the object stays valid JSON.
				if out, err := template.Replace(string(j), tags, true); err != nil || !json.Valid([]byte(out)) {
					t.Errorf("%s: Argo's substitution fails on object %d: %v", p, i, err)
				}
				switch x := r.Object.(type) {
				case *wfv1.WorkflowTemplate:
					wfts[x.Name] = x
				case *wfv1.ClusterWorkflowTemplate:
					cwfts[x.Name] = x
				}
			}
		}
		if strings.HasSuffix(p, "/argocd/values.yaml") {
			f.rbacRows = policyRows(t, p, docs)
		}
	}
	lint := validate.ValidateOpts{Lint: true}
	for n, c := range cwfts {
		if err := validate.ValidateClusterWorkflowTemplate(wfts, cwfts, c, nil, lint); err != nil {
			t.Errorf("ClusterWorkflowTemplate %s: %v", n, err)
		}
	}
	for n, w := range wfts {
		if err := validate.ValidateWorkflowTemplate(wfts, cwfts, w, nil, lint); err != nil {
			t.Errorf("WorkflowTemplate %s: %v", n, err)
		}
	}
	if base == nil {
		return f
	}
	for tag := range f.tags {
		if !base.tags[tag] {
			t.Errorf("a new Argo template tag {{%s}} reaches Argo's substitution", tag)
		}
	}
	if !slices.Equal(f.rbacRows, base.rbacRows) {
		t.Errorf("policy.csv changed shape:\n%s\nwant:\n%s", strings.Join(f.rbacRows, "\n"), strings.Join(base.rbacRows, "\n"))
	}
	for p, want := range base.shape {
		got, ok := f.shape[p]
		if !ok {
			// The field names a file (an app's Application): the benign
			// build's file is found under the hostile name.
			got, ok = f.shape[strings.ReplaceAll(p, benign, hostile)]
		}
		if !ok {
			t.Errorf("%s is not emitted", p)
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d keys and documents, want %d: the payload changed the YAML's structure", p, len(got), len(want))
			continue
		}
		for i := range got {
			if got[i] != want[i] && strings.ReplaceAll(got[i], hostile, benign) != want[i] {
				t.Errorf("%s: key %q where the benign build has %q", p, got[i], want[i])
				break
			}
		}
	}
	if len(f.shape) != len(base.shape) {
		t.Errorf("%d YAML files, want %d", len(f.shape), len(base.shape))
	}
	return f
}

// keyPaths calls fn with the path of every mapping key under n.
func keyPaths(n *yaml.Node, at string, fn func(string)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			keyPaths(c, at, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			kp := at + "." + n.Content[i].Value
			fn(kp)
			keyPaths(n.Content[i+1], kp, fn)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			keyPaths(c, at+"[]", fn)
		}
	}
}

// scalars calls fn on every scalar value (not key) under n.
func scalars(n *yaml.Node, fn func(*yaml.Node)) {
	switch n.Kind {
	case yaml.ScalarNode:
		fn(n)
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			scalars(n.Content[i], fn)
		}
	default:
		for _, c := range n.Content {
			scalars(c, fn)
		}
	}
}

// policyRows reads policy.csv as Casbin does (CSV, spaces trimmed) and
// returns each record as "p <subject> <resource> <action> <effect>" or
// "g <subject> <role>": the object (project/app) is left out, since the
// project is a field of the corpus.
func policyRows(t *testing.T, p string, docs []*yaml.Node) []string {
	t.Helper()
	var policy string
	for _, d := range docs {
		var v struct {
			Configs struct {
				RBAC map[string]string `yaml:"rbac"`
			} `yaml:"configs"`
		}
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		policy += v.Configs.RBAC["policy.csv"]
	}
	r := csv.NewReader(strings.NewReader(policy))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: policy.csv: %v", p, err)
	}
	var rows []string
	for _, rec := range recs {
		switch {
		case rec[0] == "p" && len(rec) == 6:
			rows = append(rows, strings.Join([]string{"p", rec[1], rec[2], rec[3], rec[5]}, " "))
		case rec[0] == "g" && len(rec) == 3:
			rows = append(rows, strings.Join(rec, " "))
		default:
			t.Errorf("%s: policy.csv record %q is neither p (6 fields) nor g (3 fields)", p, rec)
		}
	}
	return rows
}

// luaMessage runs the emitted health Lua the way Argo CD does, on the
// corpus's sample, and requires the message to be exactly the payload:
// nothing in it ran as Lua.
func luaMessage(t *testing.T, files map[string][]byte, want string) {
	t.Helper()
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	for p, b := range files {
		if strings.HasSuffix(p, "/argocd/health.yaml") {
			if err := yaml.Unmarshal(b[len(emit.Header):], &cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	script := cm.Data["resource.customizations.health.example.com_Widget"]
	if script == "" {
		t.Fatalf("no health script for example.com/Widget in %v", keys(cm.Data))
	}
	obj := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","generation":1},"status":{"observedGeneration":1,"phase":"Ready"}}`)
	res, err := luavm.Run(script, cm.Data["resource.customizations.useOpenLibs.example.com_Widget"] == "true", obj)
	if err != nil {
		t.Fatalf("Lua: %v", err)
	}
	if res.Status != "Healthy" || res.Message != want {
		t.Errorf("Lua returned %q, %q; want Healthy, %q", res.Status, res.Message, want)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// getters resolve templateRef and workflowTemplateRef from emitted
// objects, as the cluster would.
type wftGetter map[string]*wfv1.WorkflowTemplate

func (g wftGetter) Get(name string) (*wfv1.WorkflowTemplate, error) {
	if t, ok := g[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("WorkflowTemplate %q not found", name)
}

type cwftGetter map[string]*wfv1.ClusterWorkflowTemplate

func (g cwftGetter) Get(name string) (*wfv1.ClusterWorkflowTemplate, error) {
	if t, ok := g[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("ClusterWorkflowTemplate %q not found", name)
}
