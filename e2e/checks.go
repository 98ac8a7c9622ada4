package e2e

import "fmt"

// CheckDeployOrder checks INV-1 on a deploy's timeline: for every edge
// d → a the HCL declares, d was Healthy before a's first sync operation
// started. An app that never started is not a violation (it may have
// been skipped because a dependency failed).
func CheckDeployOrder(decl *Declared, evs []Event) []string {
	var out []string
	for _, a := range decl.Apps() {
		started, ok := First(evs, decl.Application[a], OperationStarted)
		if !ok {
			continue
		}
		for _, d := range decl.Deps[a] {
			healthy, ok := First(evs, decl.Application[d], Healthy)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s started syncing at %s but its dependency %s never became Healthy", a, started.Format(timeFormat), d))
			case healthy.After(started):
				out = append(out, fmt.Sprintf("%s started syncing at %s, before its dependency %s became Healthy at %s", a, started.Format(timeFormat), d, healthy.Format(timeFormat)))
			}
		}
	}
	return out
}

// CheckTeardownOrder checks INV-5 on a teardown's timeline: for every
// edge d → a the HCL declares, a was deleted before d.
func CheckTeardownOrder(decl *Declared, evs []Event) []string {
	var out []string
	for _, a := range decl.Apps() {
		for _, d := range decl.Deps[a] {
			gone, ok := First(evs, decl.Application[d], Deleted)
			if !ok {
				continue
			}
			dependent, ok := First(evs, decl.Application[a], Deleted)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s was deleted at %s while its dependent %s was not", d, gone.Format(timeFormat), a))
			case dependent.After(gone):
				out = append(out, fmt.Sprintf("%s was deleted at %s, before its dependent %s at %s", d, gone.Format(timeFormat), a, dependent.Format(timeFormat)))
			}
		}
	}
	return out
}

const timeFormat = "15:04:05.000"
