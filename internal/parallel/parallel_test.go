package parallel

import (
	"sync/atomic"
	"testing"
)

// Do runs every index once and raises the first panic in index
// order in the caller.
func TestDo(t *testing.T) {
	var ran [100]atomic.Int32
	Do(len(ran), func(i int) { ran[i].Add(1) })
	for i := range ran {
		if n := ran[i].Load(); n != 1 {
			t.Fatalf("index %d ran %d times", i, n)
		}
	}
	defer func() {
		tp, ok := recover().(*Panic)
		if !ok || tp.String() != "boom 3" || len(tp.Stack) == 0 {
			t.Errorf("recovered %v", tp)
		}
	}()
	Do(10, func(i int) {
		switch i {
		case 3:
			panic("boom 3")
		case 7:
			panic("boom 7")
		}
	})
	t.Error("Do did not panic")
}
