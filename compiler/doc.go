// Package compiler turns a parsed platform (lang.Module) into an
// ir.Program for one environment, and proves what the RFC requires before
// anything reaches a cluster: every reference resolves, names are valid,
// the graph is acyclic (each cycle reported as ordered hops with the
// source of every hop), settings resolve with precedence app > class >
// stack > defaults > built-in, hooks have an allowed purpose (INV-8) and
// every custom resource kind has a health rule (INV-7).
//
// It is also the one place where every string bound for generated output
// is typed by where it goes (grammar.go: Kubernetes names, Argo CD
// projects, chart versions, URLs, Git refs, paths inside the repository)
// and every number bounded (retries, ports, durations), so emitters read
// only values that fit their target. null is the same as an attribute
// left out, for required and invariant-bearing attributes alike.
//
// All errors are collected; the compiler never stops at the first. It
// returns a Program only when there are none.
//
// It does not parse (package lang), lint style (package lint) or write
// files (package emit).
package compiler
