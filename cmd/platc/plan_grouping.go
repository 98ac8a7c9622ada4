package main

import (
	"fmt"
	"io"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
)

// deployDAGJSON is how the deploy DAG is laid out within Argo's limits and
// what that costs.
type deployDAGJSON struct {
	Nested   bool   `json:"nested"`
	Groups   int    `json:"groups"`
	Strategy string `json:"strategy"`
	// EstimatedSeconds is the makespan of the DAG as emitted; with groups
	// it can exceed the plan's estimated_seconds (the flat DAG).
	EstimatedSeconds float64 `json:"estimated_seconds"`
	Error            string  `json:"error,omitempty"`
}

func deployDAG(p *ir.Program) *deployDAGJSON {
	gr, err := argo.DeployGrouping(p)
	if err != nil {
		return &deployDAGJSON{Error: err.Error()}
	}
	return &deployDAGJSON{Nested: gr.Nested(), Groups: len(gr.Groups), Strategy: gr.Strategy, EstimatedSeconds: gr.Makespan.Seconds()}
}

// writeGroupingText says, only when Argo's limits force the deploy DAG to
// be nested, how it was split and what the split costs.
func writeGroupingText(w io.Writer, p *ir.Program) {
	gr, err := argo.DeployGrouping(p)
	if err != nil {
		fmt.Fprintf(w, "\nThe deploy DAG does not fit one Argo workflow: %v.\n", err)
		return
	}
	if !gr.Nested() {
		return
	}
	lost := gr.Makespan - gr.Ungrouped
	pct := 0.0
	if gr.Ungrouped > 0 {
		pct = 100 * lost.Seconds() / gr.Ungrouped.Seconds()
	}
	fmt.Fprintf(w, "\nArgo Workflows runs at most %d tasks in one DAG, so the deploy DAG of %d apps is nested: %d groups (%s), each waiting for the groups its apps depend on.\n",
		argo.MaxTasks, len(p.Apps), len(gr.Groups), gr.Strategy)
	fmt.Fprintf(w, "Estimated duration as nested: %s, %s (%.1f%%) more than the flat DAG's %s.\n", human(gr.Makespan), human(lost), pct, human(gr.Ungrouped))
}
