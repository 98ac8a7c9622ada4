package main

import (
	"sync/atomic"
	"testing"
)

// parallel runs every index once and raises the first panic in index
// order in the caller.
func TestParallel(t *testing.T) {
	var ran [100]atomic.Int32
	parallel(len(ran), func(i int) { ran[i].Add(1) })
	for i := range ran {
		if n := ran[i].Load(); n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	defer func() {
		tp, ok := recover().(*taskPanic)
		if !ok || tp.String() != "boom 3" || len(tp.stack) == 0 {
			t.Errorf("recovered %v", tp)
		}
	}()
	parallel(10, func(i int) {
		switch i {
		case 3:
			panic("boom 3")
		case 7:
			panic("boom 7")
		}
	})
	t.Error("parallel did not panic")
}
