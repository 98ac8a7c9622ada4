// Package rules holds platc's lint rules, one file per rule named after
// it (unpinned_chart_version.go is unpinned-chart-version), each with its
// page in docs/rules/ and its fixtures in testdata/<rule-name>/. All
// returns them in the order platc rules lists them.
//
// The rules judge what the compiler accepts: they never repeat a
// compiler error, and each finding can be suppressed with a reason.
// Helpers shared by several rules (the slow classes and kinds, hook
// annotations, declaration lookups) live in rules.go and hooks.go.
package rules
