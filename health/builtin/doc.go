// Package builtin is platc's library of built-in health rules, written in
// the health language itself and embedded in the binary: one .hcl file per
// operator under library/, each rule with test blocks whose sample objects
// live under library/testdata/ (docs/health.md lists them, with what each
// rule decides and why).
//
// A user's health block for the same kind replaces the built-in rule; the
// compiler applies that precedence. Settings lists the environment
// attributes that tune a built-in rule, such as ceph_health_warn.
package builtin
