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

	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// functions is everything an expression may call. It is deliberately
// pure: nothing reads the clock, the environment or the network (INV-3).
var functions = map[string]function.Function{
	"coalesce":   stdlib.CoalesceFunc,
	"concat":     stdlib.ConcatFunc,
	"format":     stdlib.FormatFunc,
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
}

func newEvaluator(vars map[string]cty.Value) *evaluator {
	return &evaluator{ctx: &hcl.EvalContext{Variables: vars, Functions: functions}}
}

// value evaluates a and converts it to typ; ok is false when a is unset,
// null or wrong (and then a diagnostic was recorded for the wrong case).
func (e *evaluator) value(a *hcl.Attribute, typ cty.Type, want string) (cty.Value, bool) {
	if a == nil {
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

// integer evaluates a as a whole number no smaller than min.
func (e *evaluator) integer(a *hcl.Attribute, min int) (int, bool) {
	v, ok := e.value(a, cty.Number, "a whole number")
	if !ok {
		return 0, false
	}
	bf := v.AsBigFloat()
	i, acc := bf.Int64()
	if !bf.IsInt() || acc != 0 || i < int64(min) || i > 1<<31 {
		e.diags = append(e.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid number",
			Detail:   fmt.Sprintf("%q must be a whole number between %d and %d; got %s.", a.Name, min, 1<<31, shortNumber(bf)),
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

// duration evaluates a as a positive Go duration string such as "90s".
func (e *evaluator) duration(a *hcl.Attribute) (time.Duration, bool) {
	s, ok := e.str(a)
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		why := "is not a duration"
		if err == nil {
			why = "is not a positive duration"
		}
		e.diags = append(e.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid duration",
			Detail:   fmt.Sprintf("%q %s. Write a number followed by a unit, such as \"90s\", \"5m\" or \"1h30m\".", s, why),
			Subject:  a.Expr.Range().Ptr(),
		})
		return 0, false
	}
	return d, true
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
