package argo

import (
	"fmt"
	"testing"

	"github.com/platc/platc/internal/synth"
)

// BenchmarkEmit measures the whole workflows emitter, rendering included,
// at the sizes the performance work tracks.
func BenchmarkEmit(b *testing.B) {
	for _, n := range []int{43, 1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := synthetic(b, synth.Options{Apps: n, CrossStack: true})
			b.ResetTimer()
			for b.Loop() {
				if _, err := (Emitter{}).Emit(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGrouping measures the choice of nested layout alone.
func BenchmarkGrouping(b *testing.B) {
	p := synthetic(b, synth.Options{Apps: 10000, CrossStack: true})
	b.ResetTimer()
	for b.Loop() {
		if _, err := DeployGrouping(p); err != nil {
			b.Fatal(err)
		}
	}
}
