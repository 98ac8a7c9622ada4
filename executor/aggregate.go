package executor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/ir"
)

// StackHealth is a stack's health aggregated from its apps' (RFC 5.3's
// table), with how many apps are in each state.
type StackHealth struct {
	Stack  string         `json:"stack"`
	Health string         `json:"health"`
	Apps   map[string]int `json:"apps"`
}

// The states of RFC 5.3's aggregation table, worst first.
const (
	aggFailed      = "Failed"
	aggDegraded    = "Degraded"
	aggProgressing = "Progressing"
	aggHealthy     = "Healthy"
)

// rfcState is an app's state in the aggregation table. The RFC leaves
// some states out; platc decides them here, once:
//   - Missing (no Application, or one being deleted) aggregates as
//     Degraded, as the table says;
//   - Unknown, health never assessed, and a failed last operation are
//     Failed, as the wave gate treats Unknown (RFC 5.3);
//   - Suspended is Progressing: paused on the way, not broken.
func rfcState(s appStatus) string {
	switch {
	case !s.Exists || s.Deleting || s.Health == "Missing":
		return aggDegraded
	case s.Health == "" || s.Health == "Unknown" || s.Operation == "Failed" || s.Operation == "Error":
		return aggFailed
	case s.Health == "Degraded":
		return aggDegraded
	case s.Health == "Healthy":
		return aggHealthy
	}
	return aggProgressing
}

// aggregate is the table's rule: any Failed is Failed; otherwise any
// Degraded (Missing included) is Degraded, which also decides the case
// the RFC leaves open, Degraded beside Progressing; otherwise any
// Progressing is Progressing; all Healthy is Healthy.
func aggregate(counts map[string]int) string {
	for _, s := range []string{aggFailed, aggDegraded, aggProgressing} {
		if counts[s] > 0 {
			return s
		}
	}
	return aggHealthy
}

// aggregateHealth fills the report's stacks and the platform's health
// from the apps in scope. Apps outside every stack count for the platform
// only.
//
// Resource nodes count like apps (RFC 5.1: an app may depend on one), in
// their app's stack; one that could not be checked counts for nothing.
func (r *run) aggregateHealth(apps []*ir.App, status map[string]appStatus, resources []ResourceHealth) {
	byStack := map[string]map[string]int{}
	all := map[string]int{}
	count := func(stack, st string) {
		all[st]++
		if stack != "" {
			if byStack[stack] == nil {
				byStack[stack] = map[string]int{}
			}
			byStack[stack][st]++
		}
	}
	for _, a := range apps {
		count(stackOf(a), rfcState(status[a.Name]))
	}
	for _, rh := range resources {
		if st := resourceState(rh.Health); st != "" {
			count(rh.Stack, st)
		}
	}
	names := make([]string, 0, len(byStack))
	for s := range byStack {
		names = append(names, s)
	}
	slices.Sort(names)
	for _, s := range names {
		r.rep.Stacks = append(r.rep.Stacks, StackHealth{Stack: s, Health: aggregate(byStack[s]), Apps: byStack[s]})
	}
	r.rep.Health = aggregate(all)
}

// countsText is "3 Healthy, 1 Progressing", worst first.
func countsText(m map[string]int) string {
	var parts []string
	for _, s := range []string{aggFailed, aggDegraded, aggProgressing, aggHealthy} {
		if m[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[s], s))
		}
	}
	return strings.Join(parts, ", ")
}
