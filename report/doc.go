// Package report renders diagnostics for people and machines: text in the
// manner of Terraform (summary, location as file:line:column, a source
// snippet with the subject underlined, a detail that says how to fix it),
// and JSON.
//
// It only renders. What counts as an error, and which exit code follows,
// is decided by the commands in cmd/platc.
package report
