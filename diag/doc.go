// Package diag holds the small pieces every stage of platc shares about
// diagnostics: related locations carried in hcl.Diagnostic.Extra, stable
// sorting and de-duplication, and name suggestions.
//
// It is not a renderer (see package report) and it does not decide exit
// codes (see cmd/platc). Diagnostics stay hcl.Diagnostics from parse to
// print; this package only adds what HCL itself does not carry.
package diag
