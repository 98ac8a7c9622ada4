package config

import (
	"os"
	"strings"
	"testing"

	"github.com/platc/platc/internal/synth"
)

// TestSpotWorkflow: Load compiles the workflow of a run that is not the
// whole platform's committed one, once, and keeps it when it is within
// the limits (one app of 5,000, whose neighbours' checks it carries);
// over them (a stack's teardown) it is an error diagnostic at the stack
// and no workflow. A whole-platform run compiles nothing here.
func TestSpotWorkflow(t *testing.T) {
	if testing.Short() {
		t.Skip("big platform")
	}
	in := setup(t, "")
	if err := os.WriteFile(in.PlatformPath, synth.Generate(synth.Options{Apps: 5000, CrossStack: true}), 0o600); err != nil {
		t.Fatal(err)
	}
	in.Environment = "test"

	in.TargetScope = "app:" + synth.AppName(4999)
	cfg, p := Load(in)
	if !p.Empty() || cfg.SpotWorkflow == nil || cfg.SpotWorkflow.Annotations["platc.io/scope"] != in.TargetScope {
		t.Fatalf("one app: problems %v %v, workflow %v", p.Errors, p.Diags, cfg.SpotWorkflow != nil)
	}

	in.Action, in.TeardownConfirm, in.TargetScope = Teardown, "synthetic", "stack:stack-003"
	cfg, p = Load(in)
	if p.Empty() || cfg.SpotWorkflow != nil {
		t.Fatalf("stack teardown: no problem, or a workflow kept")
	}
	d := p.Diags[len(p.Diags)-1]
	if d.Subject == nil || d.Subject.Filename != in.PlatformPath || !strings.Contains(d.Summary, "over the node budget") || !strings.Contains(d.Detail, "Narrow TARGET_SCOPE") {
		t.Errorf("diagnostic %s at %v: %s", d.Summary, d.Subject, d.Detail)
	}
	for _, s := range cfg.Program.Stacks {
		if s.Name == "stack-003" && d.Subject.Start != s.DeclRange.Start {
			t.Errorf("at %v, want the stack at %v", d.Subject.Start, s.DeclRange.Start)
		}
	}

	in.Action, in.TargetScope = Deploy, ""
	cfg, p = Load(in)
	if !p.Empty() || cfg.SpotWorkflow != nil {
		t.Errorf("whole platform: problems %v, workflow %v", p.Errors, cfg.SpotWorkflow != nil)
	}
}
