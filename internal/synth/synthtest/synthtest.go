package synthtest

import (
	"fmt"
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/lang"
)

// Sizes are the platform sizes benchmarks run at: the RFC's 43 apps, and
// two platforms far past it.
var Sizes = []int{43, 1000, 10000}

// Options is the platform of n apps every benchmark uses: stacks that
// depend on each other both ways (the case that forces the deploy DAG of a
// large platform into arbitrary groups), about 3 dependencies per app
// (about 30,000 edges at 10,000 apps), and an events block.
func Options(n int) synth.Options {
	return synth.Options{Apps: n, CrossStack: true, Events: true}
}

// Module parses the platform o.
func Module(tb testing.TB, o synth.Options) *lang.Module {
	tb.Helper()
	m, diags := lang.ParseSources(synth.Sources(o))
	if diags.HasErrors() {
		tb.Fatalf("parse: %s", diags.Error())
	}
	return m
}

// Program parses and compiles the platform o in its only environment.
func Program(tb testing.TB, o synth.Options) *ir.Program {
	tb.Helper()
	p, diags := compiler.Compile(Module(tb, o), compiler.Options{})
	if diags.HasErrors() {
		tb.Fatalf("compile: %s", diags.Error())
	}
	return p
}

// Run runs f as one sub-benchmark per size, named apps=N so that
// benchstat and make bench read the size as a column.
func Run(b *testing.B, f func(b *testing.B, n int)) {
	for _, n := range Sizes {
		b.Run(fmt.Sprintf("apps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			f(b, n)
		})
	}
}

// Emit benchmarks one emitter on the platform of every size.
func Emit(b *testing.B, e emit.Emitter) {
	Run(b, func(b *testing.B, n int) {
		p := Program(b, Options(n))
		for b.Loop() {
			if _, err := e.Emit(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
