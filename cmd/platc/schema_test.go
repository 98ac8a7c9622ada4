package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestJSONSchemas checks every JSON output against the schema published
// for it in docs/schemas (issue 25): lint's report with findings of each
// severity, compiler errors and skipped rules; the plan, with and without
// --simulate; the graph by app and by stack; and the diagnostics plan
// and graph print when the platform does not compile. JSON is not
// embedded in HTML, so "<" stays "<", and it carries no sentence meant
// for a terminal.
func TestJSONSchemas(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string { return writeFile(t, dir, name, src) }
	cyclic := write("cyclic/platform.hcl", `platform "acme" {
  git { repo_url = "https://git.example.com/platform.git" }
}
app "a" { depends_on = [app.b] }
app "b" { depends_on = [app.a] }
`)
	findings := write("findings/platform.hcl", `platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "main"
  }
}
app "db" {}
app "web" {
  namespace  = "web"
  depends_on = [app.db]
  source {
    chart    = "web"
    repo_url = "https://charts.example.com"
    version  = "^1.2"
  }
}
`)
	write("findings/notes.md", "not part of the platform\n")
	roots := write("roots/platform.hcl", `platform "acme" {
  argocd {
    applications_per_root = 1
  }
  git { repo_url = "https://git.example.com/platform.git" }
}
stack "edge" {
  app "ingress" {
    namespace = "ingress"
    source { path = "apps/ingress" }
  }
  app "certs" {
    namespace = "certs"
    source { path = "apps/certs" }
  }
}
`)
	cyclic, findings, roots = filepath.Dir(cyclic), filepath.Dir(findings), filepath.Dir(roots)
	example, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	for _, name := range []string{"diagnostics", "plan", "graph", "kinds"} {
		path, err := filepath.Abs("../../docs/schemas/" + name + ".schema.json")
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(path)
		if err != nil {
			t.Fatalf("schema %s: %v", name, err)
		}
		schemas[name] = s
	}
	for _, tc := range []struct {
		schema string
		args   []string
	}{
		{"diagnostics", []string{"lint", "--format", "json", example}},
		{"diagnostics", []string{"lint", "--format", "json", findings}},
		{"diagnostics", []string{"lint", "--format", "json", cyclic}},
		{"plan", []string{"plan", "--format", "json", example}},
		{"plan", []string{"plan", "--simulate", "--format", "json", example}},
		{"plan", []string{"plan", "--format", "json", roots}},
		{"diagnostics", []string{"plan", "--format", "json", cyclic}},
		{"graph", []string{"graph", "--format", "json", example}},
		{"graph", []string{"graph", "--by", "stack", "--format", "json", example}},
		{"diagnostics", []string{"graph", "--format", "json", cyclic}},
		{"kinds", []string{"kinds", "--format", "json", ""}},
		{"kinds", []string{"kinds", "--format", "json", "kafka"}},
	} {
		t.Run(strings.Join(tc.args[:len(tc.args)-1], " ")+" "+filepath.Base(tc.args[len(tc.args)-1]), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			run(append([]string{"platc"}, tc.args...), &stdout, &stderr)
			out := stdout.Bytes()
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s\nstderr: %s", err, out, stderr.String())
			}
			if err := schemas[tc.schema].Validate(inst); err != nil {
				t.Errorf("stdout does not follow docs/schemas/%s.schema.json: %v\n%s", tc.schema, err, out)
			}
			for _, bad := range []string{`\u003c`, `\u003e`, `\u0026`, "Fix the errors above"} {
				if bytes.Contains(out, []byte(bad)) {
					t.Errorf("stdout holds %q", bad)
				}
			}
		})
	}
}

// The schemas are valid JSON Schema documents with the $id under which
// they are published.
func TestSchemaIDs(t *testing.T) {
	paths, err := filepath.Glob("../../docs/schemas/*.schema.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no schemas: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want := `"$id": "https://github.com/platc/platc/docs/schemas/` + filepath.Base(p) + `"`
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s: no %s", p, want)
		}
	}
}
