package gitops_test

import (
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/emit/internal/gitops"
	"github.com/platc/platc/lang"
)

// The compiler refuses exactly the names this package gives platc's own
// Argo CD objects, so a user app can never collide with them.
func TestCompilerReservesNames(t *testing.T) {
	for _, body := range []string{
		`app "` + gitops.RootApp + `" {}`,
		`app "a" { application = "` + gitops.WorkflowsApp + `" }`,
		`app "` + gitops.EventsApp + `" {}`,
		`app "a" { project = "` + gitops.Project + `" }`,
		`app "` + gitops.GroupRootPrefix + `data" {}`,
		`app "a" { application = "` + gitops.GroupRootPrefix + `data.2" }`,
	} {
		src := "platform \"p\" {\n  git {\n    repo_url = \"https://git.example.com/p.git\"\n  }\n}\n" + body + "\n"
		m, diags := lang.ParseSources([]lang.SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if _, diags := compiler.Compile(m, compiler.Options{}); !diags.HasErrors() {
			t.Errorf("%s: compiled without error", body)
		}
	}
}
