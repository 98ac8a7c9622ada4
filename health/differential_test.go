package health_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/health/luavm"
	"github.com/platc/platc/lang"
)

// samples returns every sample object in the repository as JSON: the
// built-in library's and health/testdata's, each also with a few
// variations (no status, status fields of the wrong type, nulls in
// lists), so every rule meets shapes it was not written for.
func samples(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(name string, y []byte) {
		j, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = j
		var m map[string]any
		if err := json.Unmarshal(j, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, mutate := range mutations {
			v := deepCopy(m)
			mutate(v)
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("%s~%d", name, i)] = b
		}
	}
	err := fs.WalkDir(os.DirFS("builtin/library/testdata"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := builtin.ReadFile("library/testdata/" + p)
		if err != nil {
			return err
		}
		add(p, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("only %d samples found", len(out))
	}
	return out
}

var mutations = []func(map[string]any){
	func(m map[string]any) { delete(m, "status") },
	func(m map[string]any) {
		st, ok := m["status"].(map[string]any)
		if !ok {
			return
		}
		for k, v := range st {
			switch v.(type) {
			case string:
				st[k] = 7
			case float64:
				st[k] = fmt.Sprint(v)
			case []any:
				st[k] = map[string]any{"0": v}
			case map[string]any:
				st[k] = []any{v, nil}
			case bool:
				st[k] = nil
			}
		}
	},
	func(m map[string]any) {
		if st, ok := m["status"].(map[string]any); ok {
			if cs, ok := st["conditions"].([]any); ok {
				st["conditions"] = append([]any{nil, "junk", map[string]any{"type": nil}}, cs...)
			}
			st["observedGeneration"] = 1e18
		}
		if md, ok := m["metadata"].(map[string]any); ok {
			md["generation"] = 1e18 + 1
		}
	},
}

func deepCopy(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// rules returns every rule to compare: the built-in library (under each
// value of each setting) and health/testdata/rules.hcl.
func rules(t *testing.T) []*health.Rule {
	t.Helper()
	lib, err := builtin.Library()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "rules.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	extra, diags := lang.ParseHealthFiles([]lang.SourceFile{{Name: "testdata/rules.hcl", Bytes: src}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	scopesOf := func(h *lang.Health) []health.Scope {
		scopes := []health.Scope{{}}
		if h.DeclRange.Filename == "testdata/rules.hcl" {
			scopes = append(scopes, health.Scope{
				Env:      map[string]any{"name": "lab", "mode": "relaxed", "bad": []any{"Failed", "Error"}},
				Platform: map[string]any{"name": "Paused"},
			})
		}
		for _, s := range builtin.Settings {
			if s.Kind != h.Kind {
				continue
			}
			for _, v := range s.Values {
				scopes = append(scopes, health.Scope{Env: map[string]any{s.Name: v}})
			}
		}
		return scopes
	}
	var out []*health.Rule
	for _, m := range []*lang.Module{lib, extra} {
		for _, h := range m.Health {
			for _, s := range scopesOf(h) {
				for _, opts := range []health.Options{{Files: m.Files}, health.WithoutFolding(health.Options{Files: m.Files})} {
					r, diags := health.Compile(h, s, opts)
					if diags.HasErrors() {
						t.Fatalf("%s: %s", h.Kind, diags.Error())
					}
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// TestDifferential runs every rule on every sample: the emitted Lua, in a
// VM set up as Argo CD sets it up, and platc's Go evaluation must give the
// same status and message, and the status must be one Argo CD accepts.
func TestDifferential(t *testing.T) {
	objs := samples(t)
	names := make([]string, 0, len(objs))
	for n := range objs {
		names = append(names, n)
	}
	slices.Sort(names)
	rs := rules(t)
	runs := 0
	statuses := map[string]int{}
	for _, r := range rs {
		for _, name := range names {
			data := objs[name]
			obj, err := health.DecodeJSON(data)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := r.Eval(obj)
			lres, err := luavm.Run(r.Lua, r.UseOpenLibs, data)
			if err != nil {
				t.Fatalf("%s on %s: Lua fails: %v\n%s", r.Kind, name, err, r.Lua)
			}
			if lres.Status == "Unknown" || !slices.Contains(health.Statuses, lres.Status) {
				t.Fatalf("%s on %s: Lua returns status %q", r.Kind, name, lres.Status)
			}
			if luavm.Result(got) != lres {
				t.Errorf("%s on %s: Go gives %s, Lua gives %s %q", r.Kind, name, got, lres.Status, lres.Message)
			}
			statuses[got.Status]++
			runs++
		}
	}
	t.Logf("%d rules x %d objects = %d comparisons; statuses %v", len(rs), len(objs), runs, statuses)
	for _, s := range health.Statuses {
		if statuses[s] == 0 {
			t.Errorf("no comparison produced %s; the corpus does not cover it", s)
		}
	}
}
