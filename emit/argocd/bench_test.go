package argocd_test

import (
	"testing"

	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/internal/synth/synthtest"
)

func BenchmarkApps(b *testing.B)   { synthtest.Emit(b, argocd.Apps{}) }
func BenchmarkValues(b *testing.B) { synthtest.Emit(b, argocd.Values{}) }
func BenchmarkHealth(b *testing.B) { synthtest.Emit(b, argocd.Health{}) }
