package executor

import (
	"reflect"
	"testing"

	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor/config"
)

// TestEmittedOnce: a run's drift check, resume arguments, workflow tree,
// deadline, leftovers and bootstrap drift read one build of the
// emitters' objects: the second read is the same objects, and they are
// what the emitters build for the program.
func TestEmittedOnce(t *testing.T) {
	p := compileEnv(t, day1, "staging")
	p.Platform.Workflows.NodeBudget = 16 // children too
	r := &run{cfg: &config.Config{Program: p}}
	o1, err := r.emitted().Objects()
	if err != nil {
		t.Fatal(err)
	}
	o2, _ := r.emitted().Objects()
	if o1 != o2 {
		t.Error("a second read of the run's objects built them again")
	}
	want, err := argo.Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o1, want) {
		t.Error("the run's objects are not argo.Build's for its program")
	}
	r1, err := r.emitted().Releases()
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := r.emitted().Releases()
	if len(r1) == 0 || &r1[0] != &r2[0] {
		t.Error("a second read of the run's releases built them again")
	}
	if wantRels, _ := ansible.Releases(p); !reflect.DeepEqual(r1, wantRels) {
		t.Errorf("the run's releases are %v, ansible.Releases gives %v", r1, wantRels)
	}
}
