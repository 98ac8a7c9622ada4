// Package plan decides how a compiled platform's deploy is scheduled and
// estimates what it costs: the critical path through the dependency
// graph weighted by each app's expected duration and the time a deploy
// takes when every app starts as soon as its own dependencies are healthy
// (ASAP); the layout of a DAG that does not fit one workflow of the
// orchestrator into groups (Group, Slices), given that orchestrator's
// limits as numbers; one simulator of a grouped DAG (Simulate, and the
// worst case emit/argo derives deadlines from), set beside the RFC's
// wave-by-wave model (RFC 5.3) and a serial order. For drawings (platc
// graph) it also gives the transitive reduction of the app graph (Reduce)
// and the stack-level graph (ByStack).
//
// It reads an ir.Program and changes nothing. It knows no orchestrator
// and builds no workflow objects (emit/argo does, from the Grouping it
// gets here), does not talk to a cluster, and its estimates are only as
// good as the expected_duration figures (or class defaults) they are
// built from.
package plan
