// Package archtest holds no code, only a test of the import rules that
// keep each decision in the stage that owns it (docs/architecture.md):
// later stages read the compiler's answers from the IR instead of
// importing the compiler, and no stage imports an emitter to learn what
// it decided.
package archtest
