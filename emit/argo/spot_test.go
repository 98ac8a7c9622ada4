package argo

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/internal/synth"
)

// TestSpotWithinLimits: at 5,000 and 10,000 apps, every workflow compiled
// on the spot (a whole-platform run as dag.yaml or environment.yaml's
// timeouts make one, a stack, an app; deploy and teardown) is either
// within the node budget and MaxObjectBytes, or a LimitError that says
// which limit it is over, by how much, and is right about it: the same
// workflow, built without the check, is over every limit the error names
// and within every other.
func TestSpotWithinLimits(t *testing.T) {
	for _, n := range []int{5000, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if testing.Short() {
				t.Skip("big platform")
			}
			p := synthetic(t, synth.Options{Apps: n, CrossStack: true})
			budget := p.Platform.Workflows.NodeBudget
			last := p.Stacks[len(p.Stacks)-1]
			scopes := []struct {
				name string
				apps []*ir.App
			}{
				{"platform", p.Apps},
				{"stack " + p.Stacks[0].Name, p.Stacks[0].Apps},
				{"stack " + last.Name, last.Apps},
				{"app " + p.Apps[0].Name, p.Apps[:1]},
				{"app " + p.Apps[n-1].Name, p.Apps[n-1:]},
			}
			refused, admitted := 0, 0
			for _, sc := range scopes {
				for _, action := range []string{"deploy", "teardown"} {
					build := ScopedTeardown
					if action == "deploy" {
						build = ScopedDeploy
					}
					wf, err := build(p, sc.apps)
					// The same workflow unchecked: what the check judged.
					var raw *spot
					var rawErr error
					if action == "deploy" {
						raw, rawErr = scopedDeploy(p, sc.apps)
					} else {
						raw, rawErr = scopedTeardown(p, sc.apps)
					}
					if rawErr != nil {
						t.Fatalf("%s %s: %v", action, sc.name, rawErr)
					}
					size, _ := objectBytes(raw.wf)
					nodes, cerr := newNodeCounter(newBuilder(p).clusterTemplate()).workflow(&raw.wf.Spec)
					if cerr != nil {
						t.Fatal(cerr)
					}
					param := checkSpecParams("Workflow", raw.wf.GenerateName, &raw.wf.Spec)
					var le *LimitError
					switch {
					case err == nil:
						admitted++
						got, _ := objectBytes(wf)
						gotNodes, cerr := newNodeCounter(newBuilder(p).clusterTemplate()).workflow(&wf.Spec)
						if cerr != nil || got > MaxObjectBytes || gotNodes > budget || param != nil {
							t.Errorf("%s %s: admitted with %d bytes, %d nodes (%v)", action, sc.name, got, gotNodes, cerr)
						}
						t.Logf("%s %s: %d apps, %d bytes, %d nodes: within the limits", action, sc.name, len(sc.apps), got, gotNodes)
					case errors.As(err, &le):
						refused++
						overNodes := strings.Contains(le.Summary, "node budget")
						overBytes := strings.Contains(le.Summary, "object size")
						overParam := strings.Contains(le.Summary, "environment variable")
						if overNodes != (nodes > budget) || overBytes != (size > MaxObjectBytes) || overParam != (param != nil) {
							t.Errorf("%s %s: %q, but the workflow has %d nodes (budget %d), %d bytes (limit %d), parameters: %v", action, sc.name, le.Summary, nodes, budget, size, MaxObjectBytes, param)
						}
						// Nodes is the least budget that admits it: only
						// when the budget is the one limit it is over.
						wantNodes := 0
						if overNodes && !overBytes && !overParam {
							wantNodes = nodes
						}
						if le.Nodes() != wantNodes {
							t.Errorf("%s %s: Nodes() = %d, want %d", action, sc.name, le.Nodes(), wantNodes)
						}
						if overNodes && (!strings.Contains(le.Detail, fmt.Sprintf("%d status nodes", nodes)) || !strings.Contains(le.Detail, fmt.Sprintf("node budget of %d", budget))) {
							t.Errorf("%s %s: the detail does not give the %d nodes and the budget: %s", action, sc.name, nodes, le.Detail)
						}
						if overBytes && (!strings.Contains(le.Detail, fmt.Sprintf("%d bytes", size)) || !strings.Contains(le.Detail, fmt.Sprint(MaxObjectBytes))) {
							t.Errorf("%s %s: the detail does not give the %d bytes and the limit: %s", action, sc.name, size, le.Detail)
						}
						t.Logf("%s %s: %d apps, %d bytes, %d nodes: refused: %s", action, sc.name, len(sc.apps), size, nodes, le.Summary)
						if overParam {
							t.Logf("  %s", param)
						}
					default:
						t.Fatalf("%s %s: %v", action, sc.name, err)
					}
				}
			}
			if refused == 0 || admitted == 0 {
				t.Errorf("%d refused, %d admitted: the scopes should show both", refused, admitted)
			}
		})
	}
}
