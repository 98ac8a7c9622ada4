// Package synth generates synthetic platforms in platc's HCL language, for
// tests and benchmarks that need platforms of a given size: 1, 43, 1,000
// or 10,000 apps.
//
// A platform is layered like a real one: apps are spread over layers, and
// each app depends on about AvgDeps apps of earlier layers, so the graph
// is acyclic by construction. Apps belong to Stacks stacks. Without
// CrossStack, stack k only depends on stacks before it, so the stack graph
// is acyclic too; with CrossStack, apps of stack A depend on apps of stack
// B and apps of B on apps of A (at different layers), which is the case
// that makes per-stack grouping impossible. Apps vary in class, expected
// duration, source kind, sync policy and volume policy, so emitters see
// every shape.
//
// Output is a pure function of Options: a fixed seed gives the same bytes
// on every machine and Go version (the generator is its own splitmix64,
// not math/rand). Generating 10,000 apps takes about 15 ms (compiling them takes
// far longer).
//
// It is not a fuzzer (see compiler's FuzzCompile) and not a model of any
// real platform beyond its shape.
package synth
