// Package linttest runs lint rules on fixtures and checks their findings
// against `# want "regexp"` comments, in the manner of go/analysis's
// analysistest.
//
// It is test support only; nothing in platc's binary imports it.
package linttest
