// Package suite assembles and runs the health-rule tests of a platform,
// for platc test: the platform's own test blocks and the built-in
// library's samples for the rules the platform uses. Every test is
// checked (sample readable and valid, rule compiling under the test's
// env) before any runs, so a bad test is an invalid configuration rather
// than a failure.
package suite

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
)

// Case is one test with the rule compiled for its scope and the way to
// read its sample.
type Case struct {
	test    *health.Test
	rule    *health.Rule
	builtin bool
	load    func(string) ([]byte, error)
}

// Cases collects the tests platc test runs: those of the platform's own
// health blocks and, withBuiltin, those of the built-in rules prog uses.
// It checks every test before any runs: an unreadable or invalid
// sample, or a rule that does not compile under a test's env, is an
// invalid configuration (exit 3), not a failing test.
// prog is nil when the platform has errors; then only the samples are
// checked.
func Cases(mod *lang.Module, prog *ir.Program, withBuiltin bool) ([]Case, hcl.Diagnostics) {
	var scope health.Scope
	if prog != nil {
		scope = health.Scope(prog.Scope)
	}
	var cases []Case
	var diags hcl.Diagnostics
	add := func(h *lang.Health, isBuiltin bool, files map[string]*hcl.File, load func(string) ([]byte, error)) {
		tests, ds := health.Tests(h)
		diags = append(diags, ds...)
		origin := "the platform's health rule"
		if isBuiltin {
			origin = "platc's built-in library"
		}
		for _, t := range tests {
			b, err := load(t.Object)
			if err == nil {
				_, err = health.DecodeObject(b, t.Object)
			}
			if err != nil {
				diags = append(diags, diag.Error(t.Block.Object.Expr.Range(), "Invalid test object",
					fmt.Sprintf("Test %q cannot use %s: %v. object is a YAML or JSON file holding one Kubernetes object, relative to the file that declares the test.", t.Name, t.Object, safefile.Unwrap(err))))
				continue
			}
			if prog == nil {
				continue
			}
			r, ds := health.Compile(h, scope.WithEnv(t.Env), health.Options{Origin: origin, Files: files})
			if ds.HasErrors() {
				at := t.Block.DeclRange
				if t.Block.Env != nil {
					at = t.Block.Env.Expr.Range()
				}
				diags = append(diags, diag.Error(at, "Rule does not compile for this test",
					fmt.Sprintf("With the env values of test %q, the rule for %s does not compile: %s. Fix the test's env or the rule.", t.Name, h.Kind, ds.Error())))
				continue
			}
			cases = append(cases, Case{test: t, rule: r, builtin: isBuiltin, load: load})
		}
	}
	// Sample objects are read only from regular files inside the
	// platform directory, bounded: a test object of /dev/zero, a FIFO or
	// ../../etc/shadow is an error, never a hang or a leak.
	inside := func(p string) ([]byte, error) {
		rel, err := filepath.Rel(mod.Dir, filepath.FromSlash(p))
		if err != nil {
			return nil, err
		}
		return safefile.ReadInside(mod.Dir, filepath.ToSlash(rel), health.MaxObjectSize)
	}
	for _, h := range mod.Health {
		add(h, false, mod.Files, inside)
	}
	if withBuiltin && prog != nil {
		for _, hr := range prog.Health {
			if hr.Origin != ir.HealthBuiltIn {
				continue
			}
			if h := builtin.Rule(hr.Key()); h != nil {
				add(h, true, builtin.Files(), builtin.ReadFile)
			}
		}
	}
	return cases, diags
}

// Run runs the cases in order, prints a line for each and a summary,
// and returns the number that failed.
func Run(w io.Writer, cases []Case) int {
	failed := 0
	for _, tc := range cases {
		o := health.Run(tc.test, tc.rule, tc.load)
		name := tc.test.Kind + " " + tc.test.Name
		if tc.builtin {
			name = "built-in " + name
		}
		if o.Pass {
			fmt.Fprintf(w, "ok    %s: %s\n", name, o.Got)
			continue
		}
		failed++
		at := diag.At(tc.test.Block.DeclRange)
		if tc.builtin {
			at = tc.test.Object
		}
		fmt.Fprintf(w, "FAIL  %s (%s): %s\n", name, at, o.Why)
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", len(cases)-failed, failed)
	return failed
}
