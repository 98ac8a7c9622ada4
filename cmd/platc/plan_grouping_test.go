package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/cmd/platc/internal/planview"
	"github.com/platc/platc/internal/exitcode"
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
	if code := run([]string{"platc", "plan", big}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("plan: exit %d\n%s", code, stderr.String())
	}
	want := regexp.MustCompile(`(?m)^Argo Workflows runs at most 200 tasks in one DAG, so the deploy DAG of 1000 apps is nested: \d+ groups \([a-z-]+\), each waiting for the groups its apps depend on\.\nEstimated duration as nested: \S+, \S+ \(\d+\.\d%\) more than the flat DAG's \S+\.$`)
	if !want.Match(stdout.Bytes()) {
		t.Errorf("plan output lacks the grouping cost:\n%s", stdout.String())
	}

	stdout.Reset()
	if code := run([]string{"platc", "plan", "--format", "json", big}, &stdout, &stderr); code != exitcode.OK {
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
	if code := run([]string{"platc", "plan", "../../examples/platform.hcl"}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("plan example: exit %d", code)
	}
	if bytes.Contains(stdout.Bytes(), []byte("nested")) {
		t.Errorf("a 43-app plan talks about nesting:\n%s", stdout.String())
	}
}

// plan --simulate on the RFC's example: the deploy DAG takes exactly the
// critical path, and the wave model's makespan is printed beside it.
func TestPlanSimulateExample(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "plan", "--simulate", "--format", "json", "../../examples/platform.hcl"}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("plan --simulate: exit %d\n%s", code, stderr.String())
	}
	var out struct {
		Simulation struct {
			Parallelism  int     `json:"parallelism"`
			CriticalPath float64 `json:"critical_path_seconds"`
			Models       []struct {
				Model       string  `json:"model"`
				Groups      int     `json:"groups"`
				Waves       int     `json:"waves"`
				Unlimited   float64 `json:"unlimited_seconds"`
				Parallelism float64 `json:"parallelism_seconds"`
			} `json:"models"`
		} `json:"simulation"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	sim := out.Simulation
	if len(sim.Models) != 3 || sim.Models[0].Model != "dag" || sim.Models[1].Model != "waves" || sim.Models[2].Model != "serial" {
		t.Fatalf("models: %+v", sim.Models)
	}
	dag, waves := sim.Models[0], sim.Models[1]
	if sim.CriticalPath != 44*60 || dag.Unlimited != sim.CriticalPath || dag.Parallelism != sim.CriticalPath || dag.Groups != 1 {
		t.Errorf("critical path %vs, deploy DAG %+v: want both 44m", sim.CriticalPath, dag)
	}
	if waves.Unlimited <= dag.Unlimited || waves.Waves == 0 {
		t.Errorf("wave model %+v is not slower than the DAG's %vs", waves, dag.Unlimited)
	}

	stdout.Reset()
	if code := run([]string{"platc", "plan", "--simulate", "../../examples/platform.hcl"}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("plan --simulate: exit %d\n%s", code, stderr.String())
	}
	text := stdout.String()
	for _, want := range []string{
		fmt.Sprintf("deploy DAG, flat               %-15s  %s\n", planview.Human(44*time.Minute), planview.Human(44*time.Minute)),
		fmt.Sprintf("RFC 5.3 wave by wave, %d waves  %-15s  %s\n", waves.Waves, planview.Human(time.Duration(waves.Unlimited)*time.Second), planview.Human(time.Duration(waves.Parallelism)*time.Second)),
		"Critical path (6 apps, 44m):\n  metallb ",
		"so it takes exactly the critical path, 44m; wave by wave takes " + planview.Human(time.Duration(waves.Unlimited)*time.Second) + ".",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan --simulate lacks %q:\n%s", want, text)
		}
	}
}

// plan --simulate simulates the deploy as the emitter splits it within
// the node budget, prints what the split costs, and the split is never
// slower than the RFC's wave model at any parallelism.
func TestPlanSimulatesSplit(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.hcl")
	if err := os.WriteFile(big, synth.Generate(synth.Options{Apps: 1000, CrossStack: true}), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "plan", "--simulate", "--format", "json", big}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("plan: exit %d\n%s", code, stderr.String())
	}
	var out struct {
		Simulation struct {
			Models []struct {
				Model            string  `json:"model"`
				ChildWorkflows   int     `json:"child_workflows"`
				UnlimitedSeconds float64 `json:"unlimited_seconds"`
			} `json:"models"`
		} `json:"simulation"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	m := out.Simulation.Models
	if len(m) < 2 || m[0].Model != "dag" || m[1].Model != "waves" {
		t.Fatalf("models %+v", m)
	}
	if m[0].ChildWorkflows < 2 {
		t.Errorf("the dag model is not the split deploy: %+v", m[0])
	}
	if m[0].UnlimitedSeconds > m[1].UnlimitedSeconds {
		t.Errorf("the split deploy takes %gs on paper, more than the waves' %gs", m[0].UnlimitedSeconds, m[1].UnlimitedSeconds)
	}
	stdout.Reset()
	if code := run([]string{"platc", "plan", "--simulate", big}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("plan: exit %d\n%s", code, stderr.String())
	}
	want := fmt.Sprintf("The deploy is split into %d child workflows to stay within the node budget", m[0].ChildWorkflows)
	if !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), "the split's cost on paper") {
		t.Errorf("plan --simulate does not say what the split costs:\n%s", stdout.String())
	}
}
