package compiler_test

import (
	"testing"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/internal/synth/synthtest"
)

// BenchmarkCompile compiles a parsed synthetic platform in every
// environment (it has one), as lint and build do.
func BenchmarkCompile(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		m := synthtest.Module(b, synthtest.Options(n))
		for b.Loop() {
			if _, diags := compiler.CompileAll(m); diags.HasErrors() {
				b.Fatal(diags.Error())
			}
		}
	})
}
