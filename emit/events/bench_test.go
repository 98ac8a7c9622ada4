package events_test

import (
	"testing"

	"github.com/platc/platc/emit/events"
	"github.com/platc/platc/internal/synth/synthtest"
)

func BenchmarkEmit(b *testing.B) { synthtest.Emit(b, events.Emitter{}) }
