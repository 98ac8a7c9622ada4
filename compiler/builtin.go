package compiler

import "github.com/platc/platc/compiler/ir"

// BuiltinClasses returns the built-in classes of RFC 3.8.5 as they are
// before any class block overrides them, sorted by name. Lint compares
// declared overrides and app timeouts against these figures.
func BuiltinClasses() []ir.Class {
	out := make([]ir.Class, 0, len(builtinClasses))
	for _, b := range builtinClasses {
		out = append(out, ir.Class{
			Name:             b.name,
			Description:      b.description,
			BuiltIn:          true,
			Timeouts:         ir.Timeouts{Sync: b.sync, Health: b.health},
			ExpectedDuration: b.expected,
		})
	}
	return out
}
