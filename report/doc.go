// Package report renders diagnostics for people and machines: text in the
// manner of Terraform (summary, location as file:line:column, a source
// snippet with the subject underlined, a detail that says how to fix it),
// JSON, and SARIF 2.1.0 for code scanning. Compiler diagnostics and lint
// findings take the same path; a lint finding carries its rule (and, for
// a notice, the Notice flag) in diag.Extra.
//
// It only renders. What counts as an error, and which exit code follows,
// is decided by the commands in cmd/platc.
package report
