package e2e

import (
	"fmt"

	"github.com/platc/platc/compiler/ir"
)

// CheckDeployOrder checks INV-1 on a deploy's timeline: for every edge
// d → a, d was Healthy before a's first sync operation started. An app
// that never started is not a violation (it may have been skipped
// because a dependency failed).
func CheckDeployOrder(p *ir.Program, evs []Event) []string {
	var out []string
	for _, a := range p.Apps {
		started, ok := First(evs, a.Application, OperationStarted)
		if !ok {
			continue
		}
		for _, d := range a.Deps {
			healthy, ok := First(evs, d.App.Application, Healthy)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s started syncing at %s but its dependency %s never became Healthy", a.Name, started.Format(timeFormat), d.App.Name))
			case healthy.After(started):
				out = append(out, fmt.Sprintf("%s started syncing at %s, before its dependency %s became Healthy at %s", a.Name, started.Format(timeFormat), d.App.Name, healthy.Format(timeFormat)))
			}
		}
	}
	return out
}

// CheckTeardownOrder checks INV-5 on a teardown's timeline: for every
// edge d → a, a was deleted before d.
func CheckTeardownOrder(p *ir.Program, evs []Event) []string {
	var out []string
	for _, a := range p.Apps {
		for _, d := range a.Deps {
			gone, ok := First(evs, d.App.Application, Deleted)
			if !ok {
				continue
			}
			dependent, ok := First(evs, a.Application, Deleted)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s was deleted at %s while its dependent %s was not", d.App.Name, gone.Format(timeFormat), a.Name))
			case dependent.After(gone):
				out = append(out, fmt.Sprintf("%s was deleted at %s, before its dependent %s at %s", d.App.Name, gone.Format(timeFormat), a.Name, dependent.Format(timeFormat)))
			}
		}
	}
	return out
}

const timeFormat = "15:04:05.000"
