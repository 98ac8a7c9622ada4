package compiler

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/lang"
)

// functions is everything an expression may call. It is deliberately
// pure: nothing reads the clock, the environment or the network (INV-3).
var functions = map[string]function.Function{
	"coalesce":   stdlib.CoalesceFunc,
	"concat":     stdlib.ConcatFunc,
	"format":     formatFunc,
	"join":       stdlib.JoinFunc,
	"jsonencode": stdlib.JSONEncodeFunc,
	"lower":      stdlib.LowerFunc,
	"merge":      stdlib.MergeFunc,
	"replace":    stdlib.ReplaceFunc,
	"trimspace":  stdlib.TrimSpaceFunc,
	"upper":      stdlib.UpperFunc,
}

// evaluator evaluates attributes in one scope and records diagnostics.
type evaluator struct {
	ctx   *hcl.EvalContext
	diags hcl.Diagnostics
	// env describes env.* for messages; nil where env is not in scope.
	env *envInfo
	// budget is shared by the evaluators of one compilation.
	budget *budget
}

// listShort joins names for a message, the first 20 of them.
func listShort(names []string) string {
	if len(names) <= 20 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:20], ", "), len(names)-20)
}

func newEvaluator(vars map[string]cty.Value, b *budget) *evaluator {
	return &evaluator{ctx: &hcl.EvalContext{Variables: vars, Functions: functions}, budget: b}
}

// value evaluates a and converts it to typ; ok is false when a is unset,
// null or wrong (and then a diagnostic was recorded for the wrong case).
func (e *evaluator) value(a *hcl.Attribute, typ cty.Type, want string) (cty.Value, bool) {
	if a == nil || !e.afford(a.Expr) {
		return cty.NilVal, false
	}
	v, ds := a.Expr.Value(e.ctx)
	if ds.HasErrors() {
		e.diags = append(e.diags, e.explain(ds)...)
		return cty.NilVal, false
	}
	if v.IsNull() {
		return cty.NilVal, false
	}
	if typ == cty.DynamicPseudoType {
		return v, true
	}
	cv, err := convert.Convert(v, typ)
	if err != nil {
		e.diags = append(e.diags, &hcl.Diagnostic{
			Severity:    hcl.DiagError,
			Summary:     "Incorrect attribute value type",
			Detail:      fmt.Sprintf("Inappropriate value for attribute %q: %s is required, got %s.", a.Name, want, friendlyType(v.Type())),
			Subject:     a.Expr.Range().Ptr(),
			Expression:  a.Expr,
			EvalContext: e.ctx,
		})
		return cty.NilVal, false
	}
	return cv, true
}

func (e *evaluator) str(a *hcl.Attribute) (string, bool) {
	v, ok := e.value(a, cty.String, "a string")
	if !ok {
		return "", false
	}
	return v.AsString(), true
}

// strOr evaluates a as a string, or returns def when a is unset.
func (e *evaluator) strOr(a *hcl.Attribute, def string) string {
	if s, ok := e.str(a); ok {
		return s
	}
	return def
}

func (e *evaluator) boolean(a *hcl.Attribute) (bool, bool) {
	v, ok := e.value(a, cty.Bool, "a bool (true or false)")
	if !ok {
		return false, false
	}
	return v.True(), true
}

// integer evaluates a as a whole number between lo and hi.
func (e *evaluator) integer(a *hcl.Attribute, lo, hi int) (int, bool) {
	v, ok := e.value(a, cty.Number, "a whole number")
	if !ok {
		return 0, false
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != 0 || i < int64(lo) || i > int64(hi) {
		e.diags = append(e.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid number",
			Detail:   fmt.Sprintf("%q must be a whole number from %d to %d; got %s.", a.Name, lo, hi, shortNumber(bf)),
			Subject:  a.Expr.Range().Ptr(),
		})
		return 0, false
	}
	return int(i), true
}

// shortNumber prints n for a message. Converting a number like 1e9000090
// to decimal takes seconds at any precision, so numbers far outside the
// range of an int64 are not printed at all.
func shortNumber(n *big.Float) string {
	if exp := n.MantExp(nil); exp > 64 || exp < -64 {
		return "a number far out of range"
	}
	if n.IsInt() {
		return n.Text('f', 0)
	}
	return n.Text('g', 6)
}

// durationRange is what a duration setting may be: whole seconds (Argo
// and the argocd CLI count in seconds, so "1ns" would silently become a
// second), from min to max, so that deadlines computed from them stay
// far from overflowing.
type durationRange struct{ min, max time.Duration }

var (
	// stepDuration bounds timeouts, backoffs and expected durations.
	stepDuration = durationRange{time.Second, 24 * time.Hour}
	// runDuration bounds a whole workflow run.
	runDuration = durationRange{time.Minute, 7 * 24 * time.Hour}
	// reconcileDuration bounds Argo CD's periodic comparison with Git:
	// not below its own 2-minute default, not so long that an app that
	// syncs automatically has effectively stopped polling (0, which
	// Argo CD reads as never, is not offered: webhooks would then be
	// the only way a change in Git is seen without a deploy).
	reconcileDuration = durationRange{2 * time.Minute, 24 * time.Hour}
)

// duration evaluates a as a Go duration string such as "90s" in r.
func (e *evaluator) duration(a *hcl.Attribute, r durationRange) (time.Duration, bool) {
	s, ok := e.str(a)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	why := ""
	switch {
	case err != nil:
		why = "is not a duration"
	case d <= 0:
		why = "is not a positive duration"
	case d%time.Second != 0:
		why = "is not a whole number of seconds; Argo and the argocd CLI count time in seconds"
	case d < r.min || d > r.max:
		why = fmt.Sprintf("is outside the range platc accepts here, %s to %s", ir.FormatDuration(r.min), ir.FormatDuration(r.max))
	}
	if why != "" {
		e.diags = append(e.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   fmt.Sprintf("%q %s. Write a whole number of seconds, minutes or hours and its unit, such as \"90s\", \"5m\" or \"1h30m\".", s, why),
			Subject:  a.Expr.Range().Ptr(),
		})
		return 0, false
	}
	return d, true
}

// present reports whether a is written and not null. null is the same as
// leaving an attribute out, so a required or invariant-bearing attribute
// set to null is as missing as one never written. An attribute whose
// value fails to evaluate counts as present: its error is reported, and
// a second one saying it is missing would only confuse.
func (e *evaluator) present(a *hcl.Attribute) bool {
	if a == nil {
		return false
	}
	if !e.afford(a.Expr) {
		return true // refused, and reported
	}
	v, ds := a.Expr.Value(e.ctx)
	return ds.HasErrors() || !v.IsNull()
}

// require reports a required attribute that is missing or null, with the
// same message either way (HCL's own wording): the subject is the
// attribute set to null, or the block that lacks it.
func (e *evaluator) require(a *hcl.Attribute, name, block string, blockRange hcl.Range) {
	if e.present(a) {
		return
	}
	detail := fmt.Sprintf("The argument %q is required, but no definition was found. Add it to the %s block.", name, block)
	subject := blockRange
	if a != nil {
		detail = fmt.Sprintf("The argument %q is required, but it is set to null. Give it a value in the %s block.", name, block)
		subject = a.Expr.Range()
	}
	e.diags = append(e.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Missing required argument",
		Detail:   detail,
		Subject:  subject.Ptr(),
	})
}

// typed evaluates a as a string of grammar g. ok is false when a is
// unset or null, or its value is wrong (which is reported).
func (e *evaluator) typed(a *hcl.Attribute, g *grammar) (string, bool) {
	s, ok := e.str(a)
	if !ok {
		return "", false
	}
	if why := g.validate(s); why != "" {
		e.diags = append(e.diags, g.diagnose(s, why, a.Expr.Range()))
		return "", false
	}
	return s, true
}

// typedOr is typed with a default for an unset or null attribute. A
// wrong value also yields def, after its diagnostic.
func (e *evaluator) typedOr(a *hcl.Attribute, g *grammar, def string) string {
	if s, ok := e.typed(a, g); ok {
		return s
	}
	return def
}

func (e *evaluator) strList(a *hcl.Attribute) ([]string, bool) {
	v, ok := e.value(a, cty.List(cty.String), "a list of strings")
	if !ok {
		return nil, false
	}
	out := make([]string, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		if ev.IsNull() {
			e.diags = append(e.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Null list element",
				Detail:   fmt.Sprintf("%q must not contain null elements.", a.Name),
				Subject:  a.Expr.Range().Ptr(),
			})
			return nil, false
		}
		out = append(out, ev.AsString())
	}
	return out, true
}

// oneOf evaluates a as a string that must be one of allowed.
func (e *evaluator) oneOf(a *hcl.Attribute, allowed ...string) (string, bool) {
	s, ok := e.str(a)
	if !ok {
		return "", false
	}
	for _, x := range allowed {
		if s == x {
			return s, true
		}
	}
	e.diags = append(e.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Invalid %s", strings.ReplaceAll(a.Name, "_", " ")),
		Detail:   fmt.Sprintf("%q is not a valid value for %q. Use one of: %s.", s, a.Name, strings.Join(allowed, ", ")),
		Subject:  a.Expr.Range().Ptr(),
	})
	return "", false
}

// jsonValue converts an evaluated value to JSON-compatible Go values,
// keeping integers exact by decoding numbers as json.Number.
func jsonValue(v cty.Value) (any, error) {
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// friendlyType names a type the way the user wrote it: HCL calls ["a"] a
// tuple and { a = 1 } an object.
func friendlyType(t cty.Type) string {
	switch {
	case t.IsTupleType() || t.IsListType():
		return "a list"
	case t.IsObjectType() || t.IsMapType():
		return "an object"
	case t == cty.String:
		return "a string"
	case t == cty.Number:
		return "a number"
	case t == cty.Bool:
		return "a bool"
	}
	return t.FriendlyName()
}

// explain adds platc's rules to HCL's own evaluation errors, which know
// nothing of env, platform or INV-3.
func (e *evaluator) explain(ds hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range ds {
		switch d.Summary {
		case "Unknown variable":
			d.Detail += " Expressions can use env.* (the attributes of the environment being built) and platform.*; nothing from outside the platform's files is available (INV-3)."
		case "Call to unknown function":
			names := make([]string, 0, len(functions))
			for n := range functions {
				names = append(names, n)
			}
			slices.Sort(names)
			d.Detail += fmt.Sprintf(" The functions available are %s. There is no clock, environment or network access (INV-3).", strings.Join(names, ", "))
		case "Unsupported attribute":
			if root, ok := traversalRoot(d.Expression); ok && root == "env" && e.env != nil {
				d.Summary = "Undeclared environment attribute"
				d.Detail = e.env.explain(missingAttr(d))
			}
		}
	}
	return ds
}

// envInfo describes the environment being compiled, for messages about
// an env.* attribute it lacks.
type envInfo struct {
	name string
	// decl is the environment block; nil for the implicit environment of
	// a platform that declares none.
	decl *lang.Environment
	// all is every environment block, to say which do declare a name.
	all []*lang.Environment
}

// explain says that this environment lacks attr, which environments do
// declare it, the nearest name it has, and how to add it.
func (env *envInfo) explain(attr string) string {
	if env.decl == nil {
		return fmt.Sprintf("The platform declares no environment block, so env.* holds only env.name (%q) and env.%s does not exist. "+
			"Declare each environment with the attributes expressions read, for example environment \"production\" { %s = \"...\" }.", env.name, attr, attr)
	}
	var have, others []string
	for n := range env.decl.Attrs {
		have = append(have, n)
	}
	slices.Sort(have)
	for _, o := range env.all {
		if o != env.decl && o.Attrs[attr] != nil && !slices.Contains(others, o.Name) {
			others = append(others, fmt.Sprintf("%q", o.Name))
		}
	}
	if len(others) == 0 && len(env.all) > 1 {
		return env.explainEverywhere(attr)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Environment %q (%s) does not declare %q", env.name, diag.At(env.decl.DeclRange), attr)
	switch len(others) {
	case 0:
		b.WriteString(".")
	case 1:
		fmt.Fprintf(&b, "; environment %s does.", others[0])
	default:
		fmt.Fprintf(&b, "; environments %s do.", strings.Join(others, ", "))
	}
	sug := diag.Suggest(attr, have)
	if sug != "" {
		fmt.Fprintf(&b, " Did you mean env.%s?", sug)
	}
	if len(have) == 0 {
		b.WriteString(" It declares no attributes (env.name is its label).")
	} else {
		fmt.Fprintf(&b, " It declares %s (and env.name, its label).", strings.Join(have, ", "))
	}
	if sug == "" {
		fmt.Fprintf(&b, " Every environment must declare the attributes expressions read through env.*: add %s = ... to environment %q.", attr, env.name)
	}
	return b.String()
}

// explainEverywhere is explain for an attribute no environment
// declares. The text names no environment in particular, so the same
// mistake found while compiling each environment is one diagnostic, not
// one per environment (diag.Sort drops exact duplicates).
func (env *envInfo) explainEverywhere(attr string) string {
	var names, have []string
	for _, o := range env.all {
		names = append(names, fmt.Sprintf("%q", o.Name))
		for n := range o.Attrs {
			if !slices.Contains(have, n) {
				have = append(have, n)
			}
		}
	}
	slices.Sort(have)
	var b strings.Builder
	fmt.Fprintf(&b, "No environment declares %q (the platform has %s).", attr, english.List(names))
	if sug := diag.Suggest(attr, have); sug != "" {
		fmt.Fprintf(&b, " Did you mean env.%s?", sug)
	} else {
		fmt.Fprintf(&b, " Every environment must declare the attributes expressions read through env.*: add %s = ... to each environment block.", attr)
	}
	return b.String()
}

// missingAttr returns the attribute name a diagnostic's subject points at
// within its expression's traversal.
func missingAttr(d *hcl.Diagnostic) string {
	if d.Expression == nil || d.Subject == nil {
		return ""
	}
	for _, t := range d.Expression.Variables() {
		for _, step := range t {
			if a, ok := step.(hcl.TraverseAttr); ok && a.SrcRange == *d.Subject {
				return a.Name
			}
		}
	}
	return ""
}

func traversalRoot(x hcl.Expression) (string, bool) {
	if x == nil {
		return "", false
	}
	vars := x.Variables()
	if len(vars) == 0 {
		return "", false
	}
	return vars[0].RootName(), true
}
