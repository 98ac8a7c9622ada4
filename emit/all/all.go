// Package all lists every emitter platc runs on build, in a fixed order,
// and runs them: Emit is what both platc build and the executor's
// bootstrap write for one environment. It exists so that emit itself
// does not import its sub-packages.
package all

import (
	"fmt"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/alerts"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/events"
	"github.com/platc/platc/internal/parallel"
)

// Emitters returns every emitter, in the order build runs them.
func Emitters() []emit.Emitter {
	return []emit.Emitter{
		argocd.Apps{},
		argocd.Values{},
		argocd.Health{},
		argo.Emitter{},
		events.Emitter{},
		alerts.Emitter{},
		ansible.Emitter{},
	}
}

// Emit runs every emitter on p, side by side, and returns their files in
// emit.Sort's order. An error is a platc bug; it names the first emitter,
// in Emitters' order, that failed.
func Emit(p *ir.Program) ([]emit.File, error) {
	emitters := Emitters()
	files := make([][]emit.File, len(emitters))
	errs := make([]error, len(emitters))
	parallel.Do(len(emitters), func(i int) { files[i], errs[i] = emitters[i].Emit(p) })
	var out []emit.File
	for i, e := range emitters {
		if errs[i] != nil {
			return nil, fmt.Errorf("emitter %s, environment %s: %w", e.Name(), p.Env.Name, errs[i])
		}
		out = append(out, files[i]...)
	}
	emit.Sort(out)
	return out, nil
}
