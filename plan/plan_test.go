package plan

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

// TestExamplePlatform compiles the canonical example: it must stay free of
// diagnostics, keep the RFC's size, and its critical path must run through
// the Ceph chain (RFC 3.8.2: "Layer 1 (Ceph) dominates total duration").
func TestExamplePlatform(t *testing.T) {
	m, diags := lang.Parse("../examples/platform.hcl")
	if len(diags) > 0 {
		t.Fatalf("parse: %s", diags.Error())
	}
	progs, diags := compiler.CompileAll(m, compiler.Options{})
	if len(diags) > 0 {
		t.Fatalf("compile: %s", diags.Error())
	}
	p := progs[0]
	if len(p.Apps) != 43 || len(p.Stacks) != 11 {
		t.Errorf("example has %d apps in %d stacks, want 43 in 11", len(p.Apps), len(p.Stacks))
	}
	s := ASAP(p)
	var path []string
	for _, st := range s.CriticalPath {
		path = append(path, st.App.Name)
	}
	want := []string{"metallb", "ceph-operator", "ceph-cluster", "storage-classes", "postgres-clusters", "harbor"}
	if diff := cmp.Diff(want, path); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
	var sum time.Duration
	for _, st := range s.CriticalPath {
		sum += st.App.ExpectedDuration
	}
	if sum != s.Makespan {
		t.Errorf("makespan %v is not the length of the critical path %v", s.Makespan, sum)
	}
}

func TestASAP(t *testing.T) {
	a := &ir.App{Name: "a", Index: 0, ExpectedDuration: 2 * time.Minute}
	b := &ir.App{Name: "b", Index: 1, ExpectedDuration: 10 * time.Minute}
	c := &ir.App{Name: "c", Index: 2, ExpectedDuration: 3 * time.Minute, Deps: []ir.Dep{{App: a}}}
	d := &ir.App{Name: "d", Index: 3, ExpectedDuration: 1 * time.Minute, Deps: []ir.Dep{{App: b}, {App: c}}}
	p := &ir.Program{Apps: []*ir.App{a, b, c, d}}
	s := ASAP(p)
	if diff := cmp.Diff([]time.Duration{0, 0, 2 * time.Minute, 10 * time.Minute}, s.Start); diff != "" {
		t.Errorf("starts (-want +got):\n%s", diff)
	}
	if s.Makespan != 11*time.Minute {
		t.Errorf("makespan = %v, want 11m", s.Makespan)
	}
	if len(s.CriticalPath) != 2 || s.CriticalPath[0].App != b || s.CriticalPath[1].App != d {
		t.Errorf("critical path = %v, want b → d", s.CriticalPath)
	}
	if got := ASAP(&ir.Program{}); got.Makespan != 0 || got.CriticalPath != nil {
		t.Errorf("empty program: %+v", got)
	}
}
