package compiler

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// HCL evaluates an expression to the end, however large its value: a
// for expression inside a for expression, "${env.s}" written a hundred
// thousand times over a megabyte-long env.s, or replace(s, "", s) all
// take the file's size to a power and exhaust memory long before any
// check of the result could run. So before an attribute is evaluated its
// cost is estimated from the syntax tree and the sizes of the values it
// reads: an upper bound, in bytes, of what evaluating it allocates (its
// value and the intermediate values on the way). An attribute above
// maxValueCost, or a compilation whose attributes add up to more than
// maxTotalCost, is refused with a diagnostic instead. The nesting limit
// (lang) bounds the estimator's own recursion.
const (
	maxValueCost = 16 << 20
	// maxTotalCost is well above real platforms: the synthetic one of
	// 10,000 apps (internal/synth) estimates at about 1.6 MB.
	maxTotalCost = 256 << 20
	// formatMaxWidth bounds the width and precision format accepts, such
	// as %999999999s (format is wrapped to refuse more).
	formatMaxWidth = 10_000
)

// budget is what a compilation may still spend on evaluation.
type budget struct {
	left     int64
	reported bool
}

func newBudget() *budget { return &budget{left: maxTotalCost} }

// afford checks expr against the limits before it is evaluated, and
// records a diagnostic when it is refused.
func (e *evaluator) afford(expr hcl.Expression) bool {
	x, ok := expr.(hclsyntax.Expression)
	if !ok {
		return true
	}
	c := e.cost(x, nil)
	if c > maxValueCost {
		e.diags = append(e.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Value too large",
			Detail: fmt.Sprintf("Evaluating this expression could produce %s, more than the %d MiB platc evaluates for one attribute (for expressions over for expressions, a long value repeated many times and replace over an empty string multiply). Simplify it.",
				costText(c), maxValueCost>>20),
			Subject: expr.Range().Ptr(),
		})
		return false
	}
	if e.budget == nil {
		return true
	}
	if c > e.budget.left {
		if !e.budget.reported {
			e.budget.reported = true
			e.diags = append(e.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Platform too large to evaluate",
				Detail:   fmt.Sprintf("With this expression the platform's expressions would produce more than %d MiB, the most platc evaluates in one compilation. Simplify the expressions that repeat large values.", maxTotalCost>>20),
				Subject:  expr.Range().Ptr(),
			})
		}
		return false
	}
	e.budget.left -= c
	return true
}

func costText(c int64) string {
	if c >= 1<<40 {
		return "terabytes"
	}
	return fmt.Sprintf("%d MiB", c>>20)
}

func add(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// size is an upper bound of v's size: its strings' bytes, and a few
// bytes for every other value.
func size(v cty.Value) int64 {
	if !v.IsKnown() || v.IsNull() {
		return 1
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return int64(len(v.AsString())) + 1
	case t.IsPrimitiveType():
		return 16
	case t.IsListType() || t.IsSetType() || t.IsTupleType() || t.IsMapType() || t.IsObjectType():
		n := int64(1)
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			n = add(n, add(size(k), size(ev)))
		}
		return n
	}
	return 16
}

// cost estimates evaluating x; locals are the sizes of a for
// expression's or a splat's symbols in scope.
func (e *evaluator) cost(x hclsyntax.Expression, locals map[string]int64) int64 {
	switch x := x.(type) {
	case nil:
		return 0
	case *hclsyntax.LiteralValueExpr:
		return size(x.Val)
	case *hclsyntax.TemplateExpr:
		var n int64
		for _, p := range x.Parts {
			n = add(n, e.cost(p, locals))
		}
		return mul(n, 2) // the parts, and the string joined from them
	case *hclsyntax.TemplateWrapExpr:
		return e.cost(x.Wrapped, locals)
	case *hclsyntax.TemplateJoinExpr:
		return mul(e.cost(x.Tuple, locals), 2)
	case *hclsyntax.ScopeTraversalExpr:
		root := x.Traversal.RootName()
		if n, ok := locals[root]; ok {
			return n
		}
		if v, ds := x.Traversal.TraverseAbs(e.ctx); !ds.HasErrors() {
			return size(v)
		}
		return 1
	case *hclsyntax.RelativeTraversalExpr:
		return e.cost(x.Source, locals)
	case *hclsyntax.AnonSymbolExpr:
		return locals[anonSymbol]
	case *hclsyntax.IndexExpr:
		return add(e.cost(x.Collection, locals), e.cost(x.Key, locals))
	case *hclsyntax.SplatExpr:
		src := e.cost(x.Source, locals)
		inner := withLocal(locals, anonSymbol, src)
		if isTraversalOf(x.Each) {
			// x[*].a picks parts of each element: no larger than x.
			return mul(src, 2)
		}
		return add(src, mul(src, e.cost(x.Each, inner)))
	case *hclsyntax.ParenthesesExpr:
		return e.cost(x.Expression, locals)
	case *hclsyntax.BinaryOpExpr:
		return add(add(e.cost(x.LHS, locals), e.cost(x.RHS, locals)), 16)
	case *hclsyntax.UnaryOpExpr:
		return add(e.cost(x.Val, locals), 16)
	case *hclsyntax.ConditionalExpr:
		return add(e.cost(x.Condition, locals), add(e.cost(x.TrueResult, locals), e.cost(x.FalseResult, locals)))
	case *hclsyntax.TupleConsExpr:
		n := int64(len(x.Exprs)) + 1
		for _, it := range x.Exprs {
			n = add(n, e.cost(it, locals))
		}
		return n
	case *hclsyntax.ObjectConsExpr:
		n := int64(len(x.Items)) + 1
		for _, it := range x.Items {
			n = add(n, add(e.cost(it.KeyExpr, locals), e.cost(it.ValueExpr, locals)))
		}
		return n
	case *hclsyntax.ObjectConsKeyExpr:
		if name := hcl.ExprAsKeyword(x.Wrapped); name != "" && !x.ForceNonLiteral {
			return int64(len(name)) + 1
		}
		return e.cost(x.Wrapped, locals)
	case *hclsyntax.ForExpr:
		coll := e.cost(x.CollExpr, locals)
		inner := withLocal(withLocal(locals, x.KeyVar, coll), x.ValVar, coll)
		body := add(add(e.cost(x.KeyExpr, inner), e.cost(x.ValExpr, inner)), e.cost(x.CondExpr, inner))
		// At most one result per element, and coll counts at least one
		// byte per element.
		return add(coll, mul(coll, body))
	case *hclsyntax.FunctionCallExpr:
		args := make([]int64, len(x.Args))
		var sum int64
		for i, a := range x.Args {
			args[i] = e.cost(a, locals)
			sum = add(sum, args[i])
		}
		return add(sum, resultCost(x.Name, args, sum))
	}
	return 16
}

// anonSymbol names the splat symbol among locals; it cannot be an
// identifier.
const anonSymbol = "[*]"

func withLocal(locals map[string]int64, name string, n int64) map[string]int64 {
	if name == "" {
		return locals
	}
	out := make(map[string]int64, len(locals)+1)
	for k, v := range locals {
		out[k] = v
	}
	out[name] = n
	return out
}

func isTraversalOf(x hclsyntax.Expression) bool {
	switch x := x.(type) {
	case *hclsyntax.AnonSymbolExpr:
		return true
	case *hclsyntax.RelativeTraversalExpr:
		return isTraversalOf(x.Source)
	}
	return false
}

// resultCost bounds the size of a call's result from its arguments'.
func resultCost(name string, args []int64, sum int64) int64 {
	arg := func(i int) int64 {
		if i < len(args) {
			return args[i]
		}
		return 0
	}
	switch name {
	case "join":
		// The separator between every pair of elements.
		return add(mul(arg(0), sum), sum)
	case "replace":
		// Every position (an empty search string matches them all) may
		// take the replacement.
		return add(mul(arg(0), add(arg(2), 1)), arg(2))
	case "format":
		return add(mul(sum, 6), mul(int64(len(args)), formatMaxWidth))
	case "jsonencode":
		return add(mul(sum, 6), 16)
	case "lower", "upper":
		return mul(sum, 3) // a case mapping may lengthen a rune
	}
	return sum
}

// formatFunc is stdlib's format, refusing a width or precision above
// formatMaxWidth before it allocates: format("%999999999s", "") would.
var formatFunc = function.New(&function.Spec{
	Description: stdlib.FormatFunc.Description(),
	Params:      stdlib.FormatFunc.Params(),
	VarParam:    stdlib.FormatFunc.VarParam(),
	Type:        function.StaticReturnType(cty.String),
	RefineResult: func(b *cty.RefinementBuilder) *cty.RefinementBuilder {
		return b.NotNull()
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		if f := args[0]; f.IsKnown() && !f.IsNull() {
			if w := widestVerb(f.AsString()); w > formatMaxWidth {
				return cty.NilVal, function.NewArgErrorf(0, "a width or precision of %d is more than the %d platc allows", w, formatMaxWidth)
			}
		}
		return stdlib.FormatFunc.Call(args)
	},
})

// widestVerb returns the largest number written in a format verb's
// width or precision (%10s, %.3f, %[1]*d counts its digits only).
func widestVerb(f string) int {
	widest := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		for i++; i < len(f); i++ {
			c := f[i]
			if c >= '0' && c <= '9' {
				n := 0
				for ; i < len(f) && f[i] >= '0' && f[i] <= '9'; i++ {
					if n < math.MaxInt32/10 {
						n = n*10 + int(f[i]-'0')
					}
				}
				widest = max(widest, n)
				i--
				continue
			}
			if c == '%' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
				break
			}
		}
	}
	return widest
}
