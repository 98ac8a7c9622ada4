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
//     ones (the bootstrap drift check's health kind);
//   - INV-8: every hook Argo CD ran or keeps for an Application is one
//     its app declares with a hook block.
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

	undeclared := undeclaredHooks(apps, status)
	c = Compliance{Invariant: "INV-8", Check: "every hook Argo CD ran or keeps is one the platform declares", Status: "pass"}
	if len(undeclared) > 0 {
		c.Status = "fail"
		c.Detail = fmt.Sprintf("%s no hook block declares: %s; declare each in its app (hook \"NAME\" { phase, purpose, manifest }) if it does work inside the app, or delete it and order apps with depends_on", english.Count(len(undeclared), "hook"), strings.Join(undeclared, "; "))
	}
	r.rep.Compliance = append(r.rep.Compliance, c)

	for _, c := range r.rep.Compliance {
		if c.Status == "fail" {
			r.log.Warnf(r.phase, c.Invariant, "%s: %s", c.Check, c.Detail)
		}
	}
	// INV-7's failure is the health drift the report already counts
	// (driftOutcome); INV-2 and INV-8 add to the outcome here.
	return len(early) > 0 || len(undeclared) > 0
}

// undeclaredHooks names the live hooks of each app that its hook blocks
// do not account for, as "app A: Kind namespace/name (Phase)". The IR
// records a declared hook's phase and manifest file, not the objects the
// file holds (their names may come from a chart's templates), so a live
// hook is matched by app and phase: it is declared when its app declares
// a hook of that phase. A hook whose phase Argo CD no longer reports
// (listed only among the Application's resources) is declared when its
// app declares any hook. The order is the apps' and Argo CD's, which is
// deterministic for a given status.
func undeclaredHooks(apps []*ir.App, status map[string]appStatus) []string {
	var out []string
	for _, a := range apps {
		s := status[a.Name]
		if !s.Exists {
			continue
		}
		for _, h := range s.Hooks {
			declared := false
			for _, d := range a.Hooks {
				if h.Phase == "" || d.Phase == h.Phase {
					declared = true
					break
				}
			}
			if declared {
				continue
			}
			name := h.Name
			if h.Namespace != "" {
				name = h.Namespace + "/" + h.Name
			}
			kind := h.Kind
			if h.Group != "" {
				kind = h.Group + "/" + h.Kind
			}
			phase := h.Phase
			if phase == "" {
				phase = "phase not reported"
			}
			out = append(out, fmt.Sprintf("app %s: %s %s (%s)", a.Name, kind, name, phase))
		}
	}
	return out
}
