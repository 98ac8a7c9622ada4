// Package emittest holds what the emitter tests share: compiling a
// platform from source, running emitters, and golden files in txtar form
// whose out/ sections -update rewrites.
//
// It is imported only by tests. It does not check what emitted files
// mean; each emitter's tests do that.
package emittest
