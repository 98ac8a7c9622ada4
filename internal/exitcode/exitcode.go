// Package exitcode is platc's one table of exit codes (RFC 7.1), shared
// by the compiler commands and the executor so that a code means the same
// thing whichever command returns it. README.md's exit-code table
// documents it.
package exitcode

const (
	OK      = 0 // clean, success, healthy
	Failure = 1 // findings, failing tests, stale output; the action failed or an app is unhealthy
	Partial = 2 // partial deploy, validate degraded, teardown orphans remain
	Invalid = 3 // invalid configuration or arguments, a missing tool
	Timeout = 4 // the action exceeded its own time limit
)
