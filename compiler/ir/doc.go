// Package ir is platc's intermediate representation: a compiled platform
// for one environment, resolved, ordered and target-neutral.
//
// It is the contract that emitters (package emit) and lint rules read. It
// holds no HCL syntax, only hcl.Range values for provenance, and every
// slice is in a deterministic order: apps in topological order with ties
// broken by name, stacks and classes by name. Emitters can range over it
// and produce the same bytes on every run.
//
// It is not where checking happens: a Program only exists when the
// compiler found no errors.
package ir
