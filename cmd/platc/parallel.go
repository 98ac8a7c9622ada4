package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// parallel calls f(0), …, f(n-1) on one goroutine per CPU and returns
// when all are done. A panic in f is raised again in the caller, so run
// still turns it into an internal error (the first one in index order,
// whichever happened first).
func parallel(n int, f func(i int)) {
	panics := make([]*taskPanic, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				func() {
					defer func() {
						if r := recover(); r != nil {
							panics[i] = &taskPanic{value: r, stack: debug.Stack()}
						}
					}()
					f(i)
				}()
			}
		})
	}
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// taskPanic is a panic caught on another goroutine, with that goroutine's
// stack for PLATC_DEBUG.
type taskPanic struct {
	value any
	stack []byte
}

func (p *taskPanic) String() string { return fmt.Sprint(p.value) }
