package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/platc/platc/internal/synth"
)

// plan says what Argo's 200-task limit costs when the deploy DAG has to
// be nested, and says nothing about it when the DAG is flat.
func TestPlanShowsGrouping(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hcl")
	if err := os.WriteFile(big, synth.Generate(synth.Options{Apps: 1000, CrossStack: true}), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "plan", big}, &stdout, &stderr); code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr.String())
	}
	want := regexp.MustCompile(`(?m)^Argo Workflows runs at most 200 tasks in one DAG, so the deploy DAG of 1000 apps is nested: \d+ groups \([a-z-]+\), each waiting for the groups its apps depend on\.\nEstimated duration as nested: \S+, \S+ \(\d+\.\d%\) more than the flat DAG's \S+\.$`)
	if !want.Match(stdout.Bytes()) {
		t.Errorf("plan output lacks the grouping cost:\n%s", stdout.String())
	}

	stdout.Reset()
	if code := run([]string{"platc", "plan", "--format", "json", big}, &stdout, &stderr); code != exitOK {
		t.Fatalf("plan json: exit %d\n%s", code, stderr.String())
	}
	var out struct {
		Estimated float64 `json:"estimated_seconds"`
		DAG       struct {
			Nested    bool    `json:"nested"`
			Groups    int     `json:"groups"`
			Estimated float64 `json:"estimated_seconds"`
		} `json:"deploy_dag"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if !out.DAG.Nested || out.DAG.Groups < 5 || out.DAG.Estimated < out.Estimated {
		t.Errorf("deploy_dag = %+v for a flat estimate of %vs", out.DAG, out.Estimated)
	}

	stdout.Reset()
	if code := run([]string{"platc", "plan", "../../examples/platform.hcl"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("plan example: exit %d", code)
	}
	if bytes.Contains(stdout.Bytes(), []byte("nested")) {
		t.Errorf("a 43-app plan talks about nesting:\n%s", stdout.String())
	}
}
