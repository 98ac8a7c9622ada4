package executor

import (
	"fmt"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/english"
)

// Compliance is one invariant checked on the live cluster (RFC 7.2's
// compliance report).
type Compliance struct {
	Invariant string `json:"invariant"`
	Check     string `json:"check"`
	Status    string `json:"status"` // pass or fail
	Detail    string `json:"detail,omitempty"`
}

// compliance checks what of the invariants the cluster can show:
//   - INV-2: no Application of the platform had its first sync started
//     by Argo CD's automated sync (platc creates them manual, syncs them
//     itself and switches automated sync on only after converging);
//   - INV-7: the health customizations Argo CD runs are the compiled
//     ones (the bootstrap drift check's health kind).
//
// It returns whether a check failed that the bootstrap drift does not
// already account for.
func (r *run) compliance(apps []*ir.App, status map[string]appStatus) bool {
	var early []string
	for _, a := range apps {
		if s := status[a.Name]; s.Exists && s.FirstSyncAutomated {
			early = append(early, a.Application)
		}
	}
	c := Compliance{Invariant: "INV-2", Check: "no Application was first synced by automated sync rather than by platc", Status: "pass"}
	if len(early) > 0 {
		c.Status = "fail"
		c.Detail = fmt.Sprintf("%s first synced by Argo CD's automated sync: %s", english.Count(len(early), "Application"), strings.Join(early, ", "))
	}
	r.rep.Compliance = append(r.rep.Compliance, c)

	var kinds []string
	for _, d := range r.rep.BootstrapDrift {
		if d.What == DriftHealth {
			kinds = append(kinds, d.Object)
		}
	}
	c = Compliance{Invariant: "INV-7", Check: "Argo CD's health customizations are the compiled ones", Status: "pass"}
	if len(kinds) > 0 {
		c.Status = "fail"
		c.Detail = "differs for " + strings.Join(kinds, ", ")
	}
	r.rep.Compliance = append(r.rep.Compliance, c)

	for _, c := range r.rep.Compliance {
		if c.Status == "fail" {
			r.log.Warnf(r.phase, c.Invariant, "%s: %s", c.Check, c.Detail)
		}
	}
	// INV-7's failure is the health drift the report already counts
	// (driftOutcome); only INV-2 adds to the outcome here.
	return len(early) > 0
}
