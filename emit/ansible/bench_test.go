package ansible_test

import (
	"testing"

	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/internal/synth/synthtest"
)

func BenchmarkEmit(b *testing.B) { synthtest.Emit(b, ansible.Emitter{}) }
