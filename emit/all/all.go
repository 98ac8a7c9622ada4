// Package all lists every emitter platc runs on build, in a fixed order.
// It exists so that emit itself does not import its sub-packages.
package all

import (
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/events"
)

// Emitters returns every emitter, in the order build runs them.
func Emitters() []emit.Emitter {
	return []emit.Emitter{
		argocd.Apps{},
		argocd.Values{},
		argocd.Health{},
		argo.Emitter{},
		events.Emitter{},
		ansible.Emitter{},
	}
}
