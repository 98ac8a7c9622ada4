package lang

// Bounds on what platc reads. Every one of them is reported as a
// diagnostic at the place that breaks it; docs/security.md lists them.
const (
	// MaxFileSize is the largest .hcl file platc reads. Parsing takes
	// about 175 times a file's size in memory; a 10,000-app platform in
	// one file is about 2.7 MiB.
	MaxFileSize = 8 << 20
	// MaxPlatformSize bounds all of a platform's .hcl files together.
	MaxPlatformSize = 16 << 20
)

// MaxNesting bounds how deeply an expression nests: brackets, strings
// and their templates, and chained operators each count a level (see
// nesting.go). HCL's parser and evaluator recurse once per level and Go
// cannot recover from running out of stack, so 100,000 nested
// parentheses would crash platc; real platforms stay below 40.
const MaxNesting = 256

// MaxStringLength bounds one string literal (a certificate or a
// dashboard in Helm values is a few hundred KiB at most).
const MaxStringLength = 1 << 20
