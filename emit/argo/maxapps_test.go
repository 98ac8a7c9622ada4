package argo

import (
	"fmt"
	"testing"
	"time"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/plan"
)

// TestMaxAppsFits: the compiler refuses more than compiler.MaxApps apps so
// that every workflow platc builds can lay them out; above Argo's
// capacity build failed with an internal error while lint passed (issue
// 21). The tightest workflow is a scoped one, with templates inlined.
func TestMaxAppsFits(t *testing.T) {
	// A quarter of it is left for layouts that cannot fill every group.
	if capacity := (MaxTemplates - 6) * MaxTasks; 4*compiler.MaxApps > 3*capacity {
		t.Errorf("compiler.MaxApps = %d is more than three quarters of %d, what the tightest workflow holds", compiler.MaxApps, capacity)
	}
	// And the grouping does lay out that many, without edges (the most
	// groups) and as one chain (the longest).
	n := compiler.MaxApps
	for _, chain := range []bool{false, true} {
		g := &plan.Graph{Apps: make([]*ir.App, n), Deps: make([][]int, n)}
		for i := range g.Apps {
			g.Apps[i] = &ir.App{Name: fmt.Sprintf("a%d", i), ExpectedDuration: time.Minute}
			if chain && i > 0 {
				g.Deps[i] = []int{i - 1}
			}
		}
		if _, err := plan.Group(g, limits(MaxTemplates-6)); err != nil {
			t.Errorf("chain %t: %v", chain, err)
		}
	}
}
