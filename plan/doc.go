// Package plan analyses a compiled platform's schedule: the critical path
// through the dependency graph weighted by each app's expected duration,
// the estimated time a deploy takes when every app starts as soon as its
// own dependencies are healthy (ASAP), and a simulation (Simulate) that
// sets the deploy DAG as emitted, nesting and parallelism included, beside
// the RFC's wave-by-wave execution model (RFC 5.3) and a serial order.
// For drawings (platc graph) it also gives the transitive reduction of
// the app graph (Reduce) and the stack-level graph (ByStack).
//
// It reads an ir.Program and changes nothing; it does not talk to a
// cluster and its estimates are only as good as the expected_duration
// figures (or class defaults) they are built from. The nesting of a
// large deploy DAG is chosen by emit/argo and passed in, so plan does not
// depend on any emitter.
package plan
