// Package plan analyses a compiled platform's schedule: the critical path
// through the dependency graph weighted by each app's expected duration,
// and the estimated time a deploy takes when every app starts as soon as
// its own dependencies are healthy.
//
// It reads an ir.Program and changes nothing; it does not talk to a
// cluster and its estimates are only as good as the expected_duration
// figures (or class defaults) they are built from.
package plan
