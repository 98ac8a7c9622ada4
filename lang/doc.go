// Package lang is the platc language: it reads a directory of *.hcl files
// (or one file) and decodes the platform, environment, defaults, class,
// stack, app, hook, health and events blocks into syntax types that keep
// every source range.
//
// lang checks shape only: which blocks and attributes may appear where,
// singletons, labels and the form of depends_on references. It does not
// evaluate attribute values, resolve references or build the dependency
// graph; that is package compiler. Attribute values stay *hcl.Attribute so
// the compiler can evaluate them once per environment with env.* and
// platform.* in scope.
package lang
