package lang

import (
	"strings"
	"testing"
)

// Every "not expected here" diagnostic says where, suggests the nearest
// name (of either kind, or the block where the name belongs), and lists
// what the block takes.
func TestUnexpectedNamesAreExplained(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"block spelled out", `application "x" {}`, []string{
			`A block of type "application" is not expected at the top level of a platform file. Did you mean "app"?`,
			"the blocks platform, environment, defaults, class, stack, app, health, events, schedule and alerts",
			`docs/language.md, section "Top level"`,
		}},
		{"plural block", `stacks "x" {}`, []string{`Did you mean "stack"?`}},
		{"argument for a block", `app "a" { timeout = "10m" }`, []string{
			`An argument named "timeout" is not expected in an app block. Did you mean the block "timeouts" (timeouts { ... })?`,
			"the arguments namespace, class, project, application, custom_resources, depends_on, annotations, labels, info, revision_history_limit, finalizer, cluster and expected_duration",
			"and the blocks source, sync, hook, ignore_differences, resource, timeouts, retry and teardown",
			`section "app"`,
		}},
		{"typo", `app "a" { namespce = "x" }`, []string{`Did you mean "namespace"?`}},
		{"synonym", `app "a" { dependencies = [] }`, []string{`Did you mean "depends_on"?`}},
		{"argument of another block", `app "a" {
  source {
    values = {}
  }
}`, []string{`values is expected in a source's helm block, not here.`, "and the blocks helm, kustomize, directory and plugin."}},
		{"block of another block", `app "a" {
  helm {}
}`, []string{`helm is expected in an app's source block, not here.`}},
		{"block written as an argument", `platform "p" { git = {} }`, []string{"git is a block here: write git { ... }, without an equals sign."}},
		{"argument written as a block", `app "a" {
  namespace {}
}`, []string{"namespace is an argument here: write namespace = <value>, with an equals sign."}},
		{"nothing close", `app "a" { frobnicate = 1 }`, []string{`An argument named "frobnicate" is not expected in an app block. Expected in an app block:`}},
		{"environment block", `environment "prod" {
  sizes {}
}`, []string{"An environment block holds arguments", "sizes = { ... }", `cluster "NAME" { ... } blocks`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := ParseSources([]SourceFile{{Name: "p.hcl", Bytes: []byte(tc.src + "\n")}})
			var details []string
			for _, d := range diags {
				details = append(details, d.Detail)
			}
			got := strings.Join(details, "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in:\n%s", w, got)
				}
			}
			if tc.name == "nothing close" && strings.Contains(got, "Did you mean") {
				t.Errorf("suggested something for a name close to nothing:\n%s", got)
			}
		})
	}
}

// Every schema lang decodes with has a name for messages and a section
// of docs/language.md (which TestLanguageReference checks).
func TestEverySchemaHasAKind(t *testing.T) {
	for _, s := range allSchemas() {
		if kindOf(s) == nil {
			t.Errorf("schema %+v has no entry in blockKinds", s)
		}
	}
}

// The tree of schemas names a child schema for every block type each
// schema allows, and nothing else.
func TestSchemaTree(t *testing.T) {
	for _, s := range allSchemas() {
		children := blockSchemas[s]
		for _, b := range s.Blocks {
			if _, ok := children[b.Type]; !ok {
				t.Errorf("block %q of %s has no schema in blockSchemas", b.Type, kindOf(s).section)
			}
		}
		if len(children) > 0 && len(children) != len(s.Blocks) {
			t.Errorf("blockSchemas lists %d blocks for %s, the schema %d", len(children), kindOf(s).section, len(s.Blocks))
		}
	}
}
