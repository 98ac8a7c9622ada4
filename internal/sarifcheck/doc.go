// Package sarifcheck validates SARIF logs against the official OASIS
// SARIF 2.1.0 JSON schema, which it embeds (see SCHEMA.md for where the
// file comes from), so tests never need the network.
//
// It is test support only; nothing in platc's binary imports it.
package sarifcheck
