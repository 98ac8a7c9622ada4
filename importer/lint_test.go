package importer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/rules"
	"github.com/platc/platc/manifest"
)

// lintPlatform runs platc lint's default rules on the platform written
// to dir, with --scan scan when scan is not "".
func lintPlatform(t *testing.T, dir, scan string) hcl.Diagnostics {
	t.Helper()
	mod, diags := lang.Parse(dir)
	progs, cdiags := compiler.CompileAll(mod, compiler.Options{})
	if diags.HasErrors() || cdiags.HasErrors() {
		t.Fatalf("%v %v", diags, cdiags)
	}
	var set *manifest.Set
	if scan != "" {
		var sdiags hcl.Diagnostics
		set, sdiags = manifest.Load(scan)
		if sdiags.HasErrors() {
			t.Fatal(sdiags)
		}
	}
	var enabled []*lint.Rule
	for _, r := range rules.All() {
		if r.Default {
			enabled = append(enabled, r)
		}
	}
	found, err := lint.Run(lint.Config{Module: mod, Programs: progs, Manifests: set, Rules: enabled, Known: rules.Names()})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func ruleOf(d *hcl.Diagnostic) string {
	if e := diag.ExtraOf(d); e != nil {
		return e.Rule
	}
	return ""
}

// platc lint of the imported platform is clean apart from findings the
// report explains; and with --scan of the original repository, every
// finding is a hook, wait or sync wave the report lists for removal.
func TestLintExplained(t *testing.T) {
	out := importAndBuild(t, "testdata/acme")
	rep := out.res.Report

	plain := lintPlatform(t, out.dir, "")
	var explained []string
	for _, l := range rep.Lint {
		explained = append(explained, l.Rule+" "+l.At)
	}
	redundant := 0
	for _, d := range plain {
		key := fmt.Sprintf("%s %s:%d", ruleOf(d), d.Subject.Filename, d.Subject.Start.Line)
		if !slices.Contains(explained, key) {
			t.Errorf("platc lint finding the report does not explain: %s: %s", key, d.Summary)
		}
		if ruleOf(d) == "redundant-dependency" {
			redundant++
		}
	}
	if len(plain) != len(rep.Lint) {
		t.Errorf("platc lint finds %d problems, the report explains %d", len(plain), len(rep.Lint))
	}
	if redundant != rep.Counts.Implied {
		t.Errorf("platc lint finds %d redundant dependencies, the report lists %d implied edges", redundant, rep.Counts.Implied)
	}

	// Everything --scan finds in the original repository is on the
	// report's list of what to delete.
	var listed []string
	for _, h := range rep.Hooks {
		listed = append(listed, h.At)
		for _, w := range h.Waits {
			listed = append(listed, w.At)
		}
	}
	for _, w := range rep.Waves {
		listed = append(listed, w.At)
	}
	scanned := 0
	for _, d := range lintPlatform(t, out.dir, "testdata/acme") {
		switch ruleOf(d) {
		case "undeclared-hook", "dependency-wait-job", "application-sync-wave":
			scanned++
			if at := at(*d.Subject); !slices.Contains(listed, at) {
				t.Errorf("--scan finding the report does not list: %s: %s", at, d.Summary)
			}
		}
	}
	if scanned == 0 {
		t.Error("--scan found nothing in the fixture")
	}
	t.Logf("%d platform findings explained, %d --scan findings listed", len(plain), scanned)
}
