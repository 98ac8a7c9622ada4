package argo

import (
	"testing"

	"github.com/platc/platc/internal/synth/synthtest"
)

// BenchmarkEmit measures the whole workflows emitter, rendering included.
func BenchmarkEmit(b *testing.B) { synthtest.Emit(b, Emitter{}) }

// BenchmarkGrouping measures the choice of nested layout alone.
func BenchmarkGrouping(b *testing.B) {
	synthtest.Run(b, func(b *testing.B, n int) {
		p := synthtest.Program(b, synthtest.Options(n))
		for b.Loop() {
			if _, err := DeployGrouping(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
