package ir

import "regexp"

var fullCommit = regexp.MustCompile(`^[0-9a-f]{40}$`)

// IsFullCommit reports whether a Git target revision names one commit
// by its full SHA-1, the form Argo CD reports in status.sync.revision. A
// branch, a tag or an abbreviated SHA is resolved again on each refresh.
func IsFullCommit(rev string) bool { return fullCommit.MatchString(rev) }
