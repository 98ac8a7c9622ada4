package lang

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/hcl/v2"
)

func TestParseKeepsRanges(t *testing.T) {
	src := `platform "acme" {
  git { repo_url = "https://git.example.com/p.git" }
}
stack "storage" {
  depends_on = [stack.infra, app.metallb]
  app "ceph" {
    namespace = "rook-ceph"
  }
}
app "web" {}
`
	m, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if len(m.Apps) != 2 || m.Apps[0].Stack != m.Stacks[0] || m.Apps[1].Stack != nil {
		t.Fatalf("apps not attached to their stacks: %+v", m.Apps)
	}
	want := []Ref{
		{Kind: RefStack, Name: "infra", Range: rng(5, 17, 5, 28)},
		{Kind: RefApp, Name: "metallb", Range: rng(5, 30, 5, 41)},
	}
	if diff := cmp.Diff(want, m.Stacks[0].DependsOn, cmpopts.IgnoreFields(hcl.Pos{}, "Byte")); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if got := m.Apps[0].NameRange; got.Start.Line != 6 || got.Start.Column != 7 {
		t.Errorf("app name range starts at %d:%d, want 6:7", got.Start.Line, got.Start.Column)
	}
	if a := m.Apps[0].Namespace; a == nil || a.Expr.Range().Start.Line != 7 {
		t.Errorf("namespace attribute lost its range: %+v", a)
	}
}

func rng(l1, c1, l2, c2 int) hcl.Range {
	return hcl.Range{Filename: "p.hcl", Start: hcl.Pos{Line: l1, Column: c1}, End: hcl.Pos{Line: l2, Column: c2}}
}

// Every bad element of depends_on is reported, not just the first.
func TestParseRefsCollectsAllErrors(t *testing.T) {
	src := `platform "acme" {}
app "web" {
  depends_on = ["db", var.x, app, app.a.b, app.ok]
}
`
	m, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	if got := len(diags); got != 4 {
		t.Errorf("got %d diagnostics, want 4:\n%s", got, diags.Error())
	}
	if refs := m.Apps[0].DependsOn; len(refs) != 1 || refs[0].String() != "app.ok" {
		t.Errorf("valid refs = %v, want [app.ok]", refs)
	}
}

func TestSingletonBlocks(t *testing.T) {
	src := `platform "acme" {
  git { repo_url = "a" }
  git { repo_url = "b" }
}
defaults {}
defaults {}
`
	_, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(src)}})
	var summaries []string
	for _, d := range diags {
		summaries = append(summaries, d.Summary)
	}
	if diff := cmp.Diff([]string{"Duplicate git block", "Duplicate defaults block"}, summaries); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
