package argo

import (
	"testing"

	"github.com/platc/platc/internal/synth/synthtest"
)

// BenchmarkEmit measures the whole workflows emitter, rendering included.
func BenchmarkEmit(b *testing.B) { synthtest.Emit(b, Emitter{}) }
