// Package parallel is platc's one worker pool: it runs independent pieces
// of work on a few goroutines, with panics carried back to the caller, so
// that a command's recover still turns a bug in any piece (HCL's parser
// on a hostile file included) into one internal error instead of a
// goroutine dump.
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
func Do(n int, f func(i int)) { DoN(runtime.GOMAXPROCS(0), n, f) }

// DoN is Do on up to workers goroutines, for work that mostly waits for
// the kernel and the disk, where more goroutines than CPUs pay.
func DoN(workers, n int, f func(i int)) {
	panics := make([]*Panic, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, max(workers, 1)) {
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

// Errors is DoN for work that can fail: it returns the error of the
// lowest index that failed, so the error reported does not depend on
// scheduling.
func Errors(workers, n int, f func(i int) error) error {
	errs := make([]error, n)
	DoN(workers, n, func(i int) { errs[i] = f(i) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Panic is a panic caught on another goroutine, with that goroutine's
// stack for PLATC_DEBUG.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) String() string { return fmt.Sprint(p.Value) }
