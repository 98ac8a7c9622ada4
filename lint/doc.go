// Package lint is platc's rule framework, in the manner of go/analysis
// and tflint: a Rule is a documented value with a Run func, a Pass is
// what a rule may look at (the syntax, the program compiled for every
// environment, and the manifests of --scan), and an Issue is one finding
// with a tight subject range and related locations.
//
// Run runs a set of rules on a platform that compiled (or, when it did
// not, only the rules marked Syntax, which read no program), applies
// `# platc:ignore RULE -- reason` suppressions, reports malformed and
// unused suppressions through the invalid-suppression rule, and returns
// the findings as hcl.Diagnostics carrying the rule name in
// diag.Extra, so they are rendered by package report exactly like
// compiler diagnostics.
//
// It is not the compiler: the invariants the RFC makes mandatory are
// compiler errors, which lint never sees and no comment can silence.
// The rules themselves live in lint/rules and their test harness in
// lint/linttest. The manifest reader of --scan (package manifest) and the
// hook, wait and sync-wave detectors (package detect) are not lint's: they
// sit at the top level because platc import reads them as much as lint.
package lint
