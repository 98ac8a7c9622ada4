// Package parallel runs independent pieces of work on one goroutine per
// CPU, with panics carried back to the caller, so that a command's
// recover still turns a bug in any piece into one internal error.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Do calls f(0), …, f(n-1) on one goroutine per CPU and returns
// when all are done. A panic in f is raised again in the caller, so a
// command still turns it into an internal error (the first one in index order,
// whichever happened first).
func Do(n int, f func(i int)) {
	panics := make([]*Panic, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				func() {
					defer func() {
						if r := recover(); r != nil {
							if p, ok := r.(*Panic); ok { // from a nested Do: keep its stack
								panics[i] = p
								return
							}
							panics[i] = &Panic{Value: r, Stack: debug.Stack()}
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

// Panic is a panic caught on another goroutine, with that goroutine's
// stack for PLATC_DEBUG.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) String() string { return fmt.Sprint(p.Value) }
