package lang

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestEdit: a run's edits add and remove an app's own dependencies,
// set its timeouts and retries with ranges in the edit's file, leave the
// parsed module's dependency slice as written, and refuse, at the edit,
// an unknown app (with a suggestion) and a dependency that comes from
// the stack.
func TestEdit(t *testing.T) {
	src := `platform "acme" {}
stack "data" {
  depends_on = [app.net]
  app "db" {}
  app "api" {
    depends_on = [app.db, app.cache]
  }
}
app "net" {}
app "cache" {}
`
	m, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	var api *App
	for _, a := range m.Apps {
		if a.Name == "api" {
			api = a
		}
	}
	parsed := api.DependsOn
	at := func(line, col int) hcl.Range {
		return hcl.Range{Filename: "dag.yaml", Start: hcl.Pos{Line: line, Column: col}, End: hcl.Pos{Line: line, Column: col + 1}}
	}
	n := func(name string, line int) Named { return Named{Name: name, Range: at(line, 1)} }
	limit := 2
	diags = m.Edit(Edits{
		What: "DAG customization",
		Add:  []DepEdit{{App: n("db", 1), DependsOn: n("cache", 2), Range: at(1, 1), Where: "dependencies.add"}},
		Remove: []DepEdit{
			{App: n("api", 3), DependsOn: n("cache", 3), Range: at(3, 1), Where: "dependencies.remove"},
			{App: n("api", 4), DependsOn: n("net", 4), Range: at(4, 1), Where: "dependencies.remove"},
			{App: n("apii", 5), DependsOn: n("db", 5), Range: at(5, 1), Where: "dependencies.remove"},
		},
		Settings: []AppSettings{
			{App: n("api", 6), Sync: "7m", SyncRange: at(6, 9), Where: "timeouts"},
			{App: n("db", 7), Limit: &limit, LimitRange: at(7, 9), Where: "retries"},
		},
	})
	deps := func(a *App) string {
		var s []string
		for _, r := range a.DependsOn {
			s = append(s, r.String())
		}
		return strings.Join(s, " ")
	}
	if got := deps(api); got != "app.db" {
		t.Errorf("api depends on %q, want app.db", got)
	}
	if len(parsed) != 2 || parsed[1].Name != "cache" {
		t.Errorf("the parsed dependency slice changed: %v", parsed)
	}
	db := m.Apps[0]
	if got := deps(db); db.Name != "db" || got != "app.cache" || db.DependsOn[0].Range != at(2, 1) {
		t.Errorf("%s depends on %q at %v, want app.cache at dag.yaml:2", db.Name, got, db.DependsOn)
	}
	if a := api.Timeouts.Sync; a == nil || a.Range != at(6, 9) {
		t.Errorf("api's sync timeout: %+v", a)
	} else if v, _ := a.Expr.Value(nil); v.AsString() != "7m" {
		t.Errorf("api's sync timeout = %s", v.AsString())
	}
	if a := db.Retry.Limit; a == nil || a.Range != at(7, 9) {
		t.Errorf("db's retry limit: %+v", a)
	} else if v, _ := a.Expr.Value(nil); v.AsBigFloat().String() != "2" {
		t.Errorf("db's retry limit = %s", v.AsBigFloat())
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Subject.String()+" "+d.Summary+": "+d.Detail)
	}
	want := []string{
		`dag.yaml:4,1-2 Dependency cannot be removed: api depends on net through stack data's depends_on (app.net, at p.hcl:3,17-24), which orders every app of the stack; a DAG customization removes only an app's own dependencies. Change the stack's dependency in the platform source instead.`,
		`dag.yaml:5,1-2 Unknown app in the DAG customization: dependencies.remove names app "apii", but the platform has no such app. Did you mean "api"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
