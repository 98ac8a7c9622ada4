// Package synthtest gives tests and benchmarks synthetic platforms
// (package synth) already parsed or compiled, at the sizes platc's
// performance work tracks.
//
// It exists so that every benchmark measures the same platforms: the
// numbers of lang, compiler, each emitter and platc build can then be
// read side by side (make bench prints them as one table).
package synthtest
