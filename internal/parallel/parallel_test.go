package parallel

import (
	"errors"
	"strconv"
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

// Errors reports the error of the first failing index whatever the order
// the goroutines ran in, and carries a panic like Do.
func TestErrors(t *testing.T) {
	for range 20 {
		err := Errors(8, 1000, func(i int) error {
			if i%97 == 13 {
				return errors.New(strconv.Itoa(i))
			}
			return nil
		})
		if err == nil || err.Error() != "13" {
			t.Fatalf("error %v, want 13", err)
		}
	}
	if err := Errors(8, 0, func(int) error { return errors.New("called") }); err != nil {
		t.Errorf("no work: %v", err)
	}
	defer func() {
		if tp, ok := recover().(*Panic); !ok || tp.String() != "boom" {
			t.Errorf("recovered %v", tp)
		}
	}()
	_ = Errors(3, 10, func(i int) error {
		if i == 5 {
			panic("boom")
		}
		return nil
	})
	t.Error("Errors did not panic")
}

// DoN with no workers asked for still runs the work.
func TestDoNZeroWorkers(t *testing.T) {
	var ran atomic.Int32
	DoN(0, 5, func(int) { ran.Add(1) })
	if ran.Load() != 5 {
		t.Errorf("ran %d of 5", ran.Load())
	}
}
