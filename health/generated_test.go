package health

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestGeneratedAgreement runs the fuzz generator on a fixed random
// stream, so every test run checks a few thousand generated expressions,
// and checks that the generator yields enough valid ones to be useful.
func TestGeneratedAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	valid, total := 0, 0
	var slow time.Duration
	var slowSrc string
	for i := 0; i < 3000; i++ {
		b := make([]byte, rng.IntN(200))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		g := &gen{b: b}
		src := g.expr(4)
		obj := g.object()
		total++
		n, diags := checkExpr(src, fuzzScope, false)
		if diags.HasErrors() {
			continue
		}
		valid++
		start := time.Now()
		a, l := runBoth(t, n, obj)
		if d := time.Since(start); d > slow {
			slow, slowSrc = d, src
		}
		if a != l {
			t.Fatalf("%s: %s vs %s", src, a, l)
		}
	}
	t.Logf("%d/%d valid; slowest %v: %s", valid, total, slow, slowSrc)
	if valid*5 < total {
		t.Errorf("only %d of %d generated expressions are valid; the fuzz generator has drifted from the language", valid, total)
	}
}
