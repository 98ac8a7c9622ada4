package health

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/diag"
)

// An expression is checked once into a small tree of nodes; the Go
// evaluator (eval.go) and the Lua generator (lua.go) both walk that tree,
// so the subset is defined in one place and each backend implements its
// semantics independently.

// kind is an expression's static type. Most expressions over obj are
// kDyn: their type is only known when an object arrives.
type kind uint8

const (
	kDyn kind = iota
	kNull
	kBool
	kNumber
	kString
	kList
	kObject
)

func (k kind) String() string {
	return [...]string{"a value", "null", "a bool", "a number", "a string", "a list", "an object"}[k]
}

func kindOf(v any) kind {
	switch v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case float64:
		return kNumber
	case string:
		return kString
	case []any:
		return kList
	case map[string]any:
		return kObject
	}
	return kDyn
}

type node interface {
	rng() hcl.Range
	typ() kind
}

type (
	// constN is a value known when the rule is compiled: a literal, or
	// something read from env or platform.
	constN struct {
		v any
		r hcl.Range
	}
	// objN is the live resource.
	objN struct{ r hcl.Range }
	// getN reads a field (key string) or a 0-based list element (key
	// int) of x; anything that is not there is null.
	getN struct {
		x   node
		key any
		r   hcl.Range
	}
	notN struct {
		x node
		r hcl.Range
	}
	// logicN is && (and) or || (!and).
	logicN struct {
		and  bool
		a, b node
		r    hcl.Range
	}
	// cmpN is ==, !=, <, <=, > or >=.
	cmpN struct {
		op   string
		a, b node
		r    hcl.Range
	}
	// nullN is x == null (or x != null when neg): the only comparison
	// with null that is not false.
	nullN struct {
		x   node
		neg bool
		r   hcl.Range
	}
	condN struct {
		c, a, b node
		r       hcl.Range
	}
	listN struct {
		elems []node
		r     hcl.Range
	}
	// tmplN concatenates its parts, each turned into a string.
	tmplN struct {
		parts []node
		r     hcl.Range
	}
	callN struct {
		fn   string
		args []node
		r    hcl.Range
	}
	// badN stands for an expression that was reported; it has no
	// static type, so it causes no follow-on diagnostics.
	badN struct{ r hcl.Range }
)

func (n *constN) rng() hcl.Range { return n.r }
func (n *objN) rng() hcl.Range   { return n.r }
func (n *getN) rng() hcl.Range   { return n.r }
func (n *notN) rng() hcl.Range   { return n.r }
func (n *logicN) rng() hcl.Range { return n.r }
func (n *cmpN) rng() hcl.Range   { return n.r }
func (n *nullN) rng() hcl.Range  { return n.r }
func (n *condN) rng() hcl.Range  { return n.r }
func (n *listN) rng() hcl.Range  { return n.r }
func (n *tmplN) rng() hcl.Range  { return n.r }
func (n *callN) rng() hcl.Range  { return n.r }
func (n *badN) rng() hcl.Range   { return n.r }

func (n *constN) typ() kind { return kindOf(n.v) }
func (n *objN) typ() kind   { return kObject }
func (n *getN) typ() kind   { return kDyn }
func (n *badN) typ() kind   { return kDyn }
func (n *notN) typ() kind   { return kBool }
func (n *logicN) typ() kind { return kBool }
func (n *cmpN) typ() kind   { return kBool }
func (n *nullN) typ() kind  { return kBool }
func (n *listN) typ() kind  { return kList }
func (n *tmplN) typ() kind  { return kString }
func (n *condN) typ() kind {
	if ta, tb := n.a.typ(), n.b.typ(); ta == tb {
		return ta
	}
	return kDyn
}
func (n *callN) typ() kind {
	switch n.fn {
	case "contains", "startswith":
		return kBool
	case "length":
		return kNumber
	}
	return kDyn
}

// Functions lists what a health expression may call, with its arity
// (-1: one or more arguments).
var Functions = map[string]int{
	"condition":  2,
	"contains":   2,
	"length":     1,
	"lower":      1,
	"upper":      1,
	"startswith": 2,
	"coalesce":   -1,
}

// openLibFuncs need Lua's string library, which Argo CD only opens for
// kinds with resource.customizations.useOpenLibs set.
var openLibFuncs = []string{"lower", "startswith", "upper"}

// Limits that keep every compiled script well inside gopher-lua's
// register and nesting limits and Argo CD's one-second budget.
const (
	maxDepth    = 40
	maxNodes    = 400
	maxTmplPart = 64
)

// Scope holds the values known when a rule is compiled: env.* and
// platform.* of the environment being built.
type Scope struct {
	Env      map[string]any
	Platform map[string]any
}

// checker turns HCL syntax into nodes, reporting everything outside the
// subset at its range.
type checker struct {
	scope  Scope
	noFold bool // keep constant subtrees, so tests exercise both backends on them
	diags  hcl.Diagnostics
	nodes  int
	deep   bool // a depth diagnostic was reported already
}

const subsetHelp = "Health rules are compiled to the Lua Argo CD runs, so they support only: obj.a.b, obj.a[\"key\"] and obj.list[0] (a missing field is null), env.* and platform.*, literals and list literals, == != < <= > >=, && || !, cond ? a : b, string templates, and the functions condition, contains, length, lower, upper, startswith and coalesce."

func (c *checker) errorf(r hcl.Range, summary, format string, args ...any) {
	c.diags = append(c.diags, diag.Error(r, summary, fmt.Sprintf(format, args...)))
}

// expr checks e; it always returns a node (a null constant after an
// error) so checking carries on and reports every problem.
func (c *checker) expr(e hcl.Expression, depth int) node {
	se, ok := e.(hclsyntax.Expression)
	if !ok {
		c.errorf(e.Range(), "Unsupported health expression syntax", "Health rules must be written in HCL native syntax (.hcl files), not JSON.")
		return &badN{r: e.Range()}
	}
	r := se.Range()
	if depth > maxDepth {
		if !c.deep {
			c.deep = true
			c.errorf(r, "Health expression too deeply nested", "This expression nests more than %d levels deep, more than a health check needs and more than platc will compile into Lua. Split it up, for example with coalesce or a simpler condition.", maxDepth)
		}
		return &badN{r: r}
	}
	c.nodes++
	if c.nodes == maxNodes+1 {
		c.errorf(r, "Health expression too large", "A health attribute may have at most %d operators, values and calls; this one has more. Simplify it.", maxNodes)
	}
	n := c.syntax(se, depth)
	return c.fold(n)
}

func (c *checker) syntax(e hclsyntax.Expression, depth int) node {
	r := e.Range()
	switch x := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return c.literal(x.Val, r)
	case *hclsyntax.TemplateExpr:
		if x.IsStringLiteral() {
			return c.literal(x.Parts[0].(*hclsyntax.LiteralValueExpr).Val, r)
		}
		return c.template(x.Parts, r, depth)
	case *hclsyntax.TemplateWrapExpr:
		// "${x}" is a string in health rules, like every other template.
		return c.template([]hclsyntax.Expression{x.Wrapped}, r, depth)
	case *hclsyntax.ParenthesesExpr:
		return c.expr(x.Expression, depth+1)
	case *hclsyntax.ScopeTraversalExpr:
		return c.traversal(x.Traversal, r)
	case *hclsyntax.RelativeTraversalExpr:
		n := c.expr(x.Source, depth+1)
		return c.steps(n, x.Traversal, r.Start)
	case *hclsyntax.IndexExpr:
		coll := c.expr(x.Collection, depth+1)
		key := c.expr(x.Key, depth+1)
		if !constant(key) {
			c.errorf(x.Key.Range(), "Non-constant index in health rule", "An index must be known when the rule is compiled: a string or a whole number, or an env.* value. Lua has no way to look up an index computed from the object here; write the path out, such as obj.status.conditions[0].")
			return &badN{r: r}
		}
		return c.get(coll, eval(key, nil), x.Key.Range(), r)
	case *hclsyntax.TupleConsExpr:
		l := &listN{r: r}
		for _, el := range x.Exprs {
			l.elems = append(l.elems, c.expr(el, depth+1))
		}
		return l
	case *hclsyntax.UnaryOpExpr:
		v := c.expr(x.Val, depth+1)
		switch x.Op {
		case hclsyntax.OpLogicalNot:
			c.wantBool(v, "!")
			return &notN{x: v, r: r}
		case hclsyntax.OpNegate:
			if k, ok := v.(*constN); ok {
				if f, ok := k.v.(float64); ok {
					return &constN{v: -f, r: r}
				}
			}
			c.errorf(r, "Arithmetic in health rule", "Only a number literal may be negated, such as -1. %s", subsetHelp)
			return &badN{r: r}
		}
	case *hclsyntax.BinaryOpExpr:
		return c.binary(x, depth)
	case *hclsyntax.ConditionalExpr:
		cond := c.expr(x.Condition, depth+1)
		c.wantBool(cond, "the condition of ? :")
		return &condN{c: cond, a: c.expr(x.TrueResult, depth+1), b: c.expr(x.FalseResult, depth+1), r: r}
	case *hclsyntax.FunctionCallExpr:
		return c.call(x, depth)
	case *hclsyntax.ObjectConsExpr:
		c.errorf(r, "Object literal in health rule", "Health expressions cannot build objects; compare fields one by one instead. %s", subsetHelp)
		return &badN{r: r}
	case *hclsyntax.SplatExpr:
		c.errorf(r, "Splat expression in health rule", "[*] is not supported in health rules. To look at one element use an index such as obj.status.nodes[0], and to find a condition by type use condition(obj, \"Ready\"). %s", subsetHelp)
		return &badN{r: r}
	case *hclsyntax.ForExpr:
		c.errorf(r, "For expression in health rule", "for expressions are not supported in health rules. Use contains, length or condition instead. %s", subsetHelp)
		return &badN{r: r}
	case *hclsyntax.TemplateJoinExpr:
		c.errorf(r, "Template directive in health rule", "%%{for} is not supported in health rule templates; %%{if} is. %s", subsetHelp)
		return &badN{r: r}
	}
	c.errorf(r, "Unsupported expression in health rule", "%s", subsetHelp)
	return &badN{r: r}
}

func (c *checker) literal(v cty.Value, r hcl.Range) node {
	if v.IsNull() {
		return &constN{r: r}
	}
	switch v.Type() {
	case cty.String:
		return &constN{v: v.AsString(), r: r}
	case cty.Bool:
		return &constN{v: v.True(), r: r}
	case cty.Number:
		f, ok := number(v.AsBigFloat())
		if !ok {
			// Not formatted back: printing a number with a huge exponent
			// in decimal takes seconds.
			c.errorf(r, "Number out of range", "Health rules compute with 64-bit floating point numbers, as Lua does, and this number is too large for one (the largest is about 1.8e308).")
			return &badN{r: r}
		}
		return &constN{v: f, r: r}
	}
	c.errorf(r, "Unsupported literal in health rule", "%s", subsetHelp)
	return &badN{r: r}
}

// number rounds a literal to the float64 Lua will read from its text.
func number(b *big.Float) (float64, bool) {
	f, _ := b.Float64()
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

func (c *checker) template(parts []hclsyntax.Expression, r hcl.Range, depth int) node {
	if len(parts) > maxTmplPart {
		c.errorf(r, "Template too long", "A health rule template may have at most %d literal and interpolated parts; this one has %d. Shorten the message.", maxTmplPart, len(parts))
		return &badN{r: r}
	}
	t := &tmplN{r: r}
	for _, p := range parts {
		n := c.expr(p, depth+1)
		if k := n.typ(); k == kList || k == kObject {
			c.errorf(n.rng(), "Cannot interpolate a collection", "%s cannot be written into a string. Interpolate one of its fields instead.", capital(k.String()))
		}
		t.parts = append(t.parts, n)
	}
	return t
}

func (c *checker) traversal(t hcl.Traversal, r hcl.Range) node {
	root := t.RootName()
	rr := t[0].SourceRange()
	var n node
	switch root {
	case "obj":
		n = &objN{r: rr}
	case "env":
		n = &constN{v: c.scope.Env, r: rr}
		if c.scope.Env == nil {
			n = &constN{v: map[string]any{}, r: rr}
		}
	case "platform":
		n = &constN{v: c.scope.Platform, r: rr}
		if c.scope.Platform == nil {
			n = &constN{v: map[string]any{}, r: rr}
		}
	default:
		msg := fmt.Sprintf("There is no variable named %q in a health rule. Health expressions read obj (the live resource), env.* and platform.*.", root)
		if s := diag.Suggest(root, []string{"env", "obj", "platform"}); s != "" {
			msg += fmt.Sprintf(" Did you mean %q?", s)
		}
		c.errorf(rr, "Unknown variable in health rule", "%s", msg)
		return &badN{r: r}
	}
	return c.steps(n, t[1:], r.Start)
}

// steps applies attribute and index steps to n.
func (c *checker) steps(n node, t hcl.Traversal, start hcl.Pos) node {
	for _, step := range t {
		sr := step.SourceRange()
		whole := hcl.Range{Filename: sr.Filename, Start: start, End: sr.End}
		switch s := step.(type) {
		case hcl.TraverseAttr:
			n = c.fold(c.get(n, s.Name, sr, whole))
		case hcl.TraverseIndex:
			var key any
			switch {
			case s.Key.IsNull():
				key = nil
			case s.Key.Type() == cty.String:
				key = s.Key.AsString()
			case s.Key.Type() == cty.Number:
				key, _ = number(s.Key.AsBigFloat())
			case s.Key.Type() == cty.Bool:
				key = s.Key.True()
			}
			n = c.fold(c.get(n, key, sr, whole))
		case hcl.TraverseSplat:
			c.errorf(sr, "Splat expression in health rule", "[*] is not supported in health rules. To look at one element use an index such as obj.status.nodes[0], and to find a condition by type use condition(obj, \"Ready\"). %s", subsetHelp)
			return &badN{r: whole}
		}
	}
	return n
}

// get builds a field or element access; key must be a string or a whole
// number from 0 up.
func (c *checker) get(x node, key any, kr, r hcl.Range) node {
	switch k := key.(type) {
	case string:
		if t := x.typ(); t != kDyn && t != kObject && t != kNull {
			c.errorf(kr, "Field of a non-object", "%s has no fields, so this is always null. Check the path.", capital(t.String()))
		}
		return &getN{x: x, key: k, r: r}
	case float64:
		if k != math.Trunc(k) || k < 0 || k >= 1<<31 {
			c.errorf(kr, "Invalid index", "List indexes are whole numbers from 0 (the first element), as in HCL; %s is not one.", FormatNumber(k))
			return &badN{r: r}
		}
		if t := x.typ(); t != kDyn && t != kList && t != kNull {
			c.errorf(kr, "Index of a non-list", "%s has no elements, so this is always null. Check the path.", capital(t.String()))
		}
		return &getN{x: x, key: int(k), r: r}
	}
	c.errorf(kr, "Invalid index", "An index must be a string (a field name) or a whole number (a list position from 0), not %s.", kindOf(key))
	return &badN{r: r}
}

var cmpOps = map[*hclsyntax.Operation]string{
	hclsyntax.OpEqual:              "==",
	hclsyntax.OpNotEqual:           "!=",
	hclsyntax.OpLessThan:           "<",
	hclsyntax.OpLessThanOrEqual:    "<=",
	hclsyntax.OpGreaterThan:        ">",
	hclsyntax.OpGreaterThanOrEqual: ">=",
}

func (c *checker) binary(x *hclsyntax.BinaryOpExpr, depth int) node {
	r := x.Range()
	switch x.Op {
	case hclsyntax.OpLogicalAnd, hclsyntax.OpLogicalOr:
		and := x.Op == hclsyntax.OpLogicalAnd
		op := "||"
		if and {
			op = "&&"
		}
		a, b := c.expr(x.LHS, depth+1), c.expr(x.RHS, depth+1)
		c.wantBool(a, op)
		c.wantBool(b, op)
		return &logicN{and: and, a: a, b: b, r: r}
	}
	op, ok := cmpOps[x.Op]
	if !ok {
		c.errorf(r, "Arithmetic in health rule", "+ - * / %% are not supported in health rules: Argo CD's Lua and platc's own evaluation would have to agree on every corner of number arithmetic, and a health check only needs comparisons. Compare the values directly, such as obj.status.readyReplicas == obj.spec.replicas.")
		return &badN{r: r}
	}
	// A literal null makes == and != a presence test; any other null
	// operand makes a comparison false.
	if op == "==" || op == "!=" {
		lnull, rnull := isNullLiteral(x.LHS), isNullLiteral(x.RHS)
		if lnull || rnull {
			other := x.RHS
			if rnull {
				other = x.LHS
			}
			return &nullN{x: c.expr(other, depth+1), neg: op == "!=", r: r}
		}
	}
	a, b := c.expr(x.LHS, depth+1), c.expr(x.RHS, depth+1)
	for _, n := range []node{a, b} {
		t := n.typ()
		switch {
		case t == kList || t == kObject:
			c.errorf(n.rng(), "Cannot compare a collection", "%s cannot be compared with %s: comparisons work on strings, numbers and bools. Compare one of its fields, or use contains or length.", capital(t.String()), op)
		case (op != "==" && op != "!=") && t == kBool:
			c.errorf(n.rng(), "Cannot order bools", "%s compares numbers with numbers and strings with strings; it is always false for a bool.", op)
		}
	}
	return &cmpN{op: op, a: a, b: b, r: r}
}

func isNullLiteral(e hclsyntax.Expression) bool {
	for {
		p, ok := e.(*hclsyntax.ParenthesesExpr)
		if !ok {
			break
		}
		e = p.Expression
	}
	l, ok := e.(*hclsyntax.LiteralValueExpr)
	return ok && l.Val.IsNull()
}

func (c *checker) call(x *hclsyntax.FunctionCallExpr, depth int) node {
	r := x.Range()
	arity, ok := Functions[x.Name]
	if !ok {
		names := make([]string, 0, len(Functions))
		for n := range Functions {
			names = append(names, n)
		}
		slices.Sort(names)
		msg := fmt.Sprintf("Health rules can call only %s.", strings.Join(names, ", "))
		if s := diag.Suggest(x.Name, names); s != "" {
			msg = fmt.Sprintf("Did you mean %q? ", s) + msg
		}
		c.errorf(x.NameRange, "Unknown function in health rule", "%s", msg)
		return &badN{r: r}
	}
	if x.ExpandFinal {
		c.errorf(r, "Argument expansion in health rule", "%s(...) with ... is not supported; pass the arguments one by one.", x.Name)
		return &badN{r: r}
	}
	if (arity >= 0 && len(x.Args) != arity) || (arity < 0 && len(x.Args) == 0) {
		want := fmt.Sprintf("%d argument", arity)
		if arity != 1 {
			want += "s"
		}
		if arity < 0 {
			want = "at least one argument"
		}
		c.errorf(r, "Wrong number of arguments", "%s takes %s, got %d. %s", x.Name, want, len(x.Args), funcUsage[x.Name])
		return &badN{r: r}
	}
	n := &callN{fn: x.Name, r: r}
	for _, a := range x.Args {
		n.args = append(n.args, c.expr(a, depth+1))
	}
	bad := func(i int, want ...kind) {
		t := n.args[i].typ()
		if t == kDyn || slices.Contains(want, t) {
			return
		}
		c.errorf(n.args[i].rng(), "Wrong argument type", "Argument %d of %s is %s. %s", i+1, x.Name, t, funcUsage[x.Name])
	}
	switch x.Name {
	case "condition":
		bad(0, kObject, kNull)
		bad(1, kString)
	case "contains":
		bad(0, kList, kNull)
	case "length":
		bad(0, kList, kObject, kString, kNull)
	case "lower", "upper":
		bad(0, kString, kNull)
	case "startswith":
		bad(0, kString, kNull)
		bad(1, kString)
	}
	return n
}

var funcUsage = map[string]string{
	"condition":  `condition(obj, "Ready") is the first element of obj.status.conditions whose type is "Ready", or null.`,
	"contains":   `contains(["a", "b"], x) is true when the list has an element equal to x.`,
	"length":     `length(x) is the number of elements of a list, keys of an object or bytes of a string, and 0 for anything else.`,
	"lower":      `lower(s) is s in lower case, or null when s is not a string.`,
	"upper":      `upper(s) is s in upper case, or null when s is not a string.`,
	"startswith": `startswith(s, prefix) is true when the string s starts with prefix.`,
	"coalesce":   `coalesce(a, b, ...) is the first argument that is neither null nor "", or null.`,
}

// wantBool reports a value that can never be true in a boolean position.
func (c *checker) wantBool(n node, where string) {
	if t := n.typ(); t != kBool && t != kDyn {
		c.errorf(n.rng(), "Expected a bool", "The operand of %s is %s, so it is never true. Use a comparison such as obj.status.phase == \"Ready\".", where, t)
	}
}

// fold replaces a subtree that does not read obj with its value, so the
// emitted Lua carries constants (env settings become true or false).
func (c *checker) fold(n node) node {
	if c.noFold {
		return n
	}
	if _, ok := n.(*constN); ok {
		return n
	}
	if constant(n) {
		return &constN{v: eval(n, nil), r: n.rng()}
	}
	switch x := n.(type) {
	case *logicN:
		// x && false is false and x || true is true; x && true and
		// x || false are x as a bool (x == true).
		for _, pair := range [][2]node{{x.a, x.b}, {x.b, x.a}} {
			k, ok := pair[0].(*constN)
			if !ok {
				continue
			}
			if truthy(k.v) != x.and {
				return &constN{v: !x.and, r: x.r}
			}
			if pair[1].typ() == kBool {
				return pair[1]
			}
			return &cmpN{op: "==", a: pair[1], b: &constN{v: true, r: k.r}, r: x.r}
		}
	case *tmplN:
		// Adjacent constant parts become one string.
		var parts []node
		for _, p := range x.parts {
			k, ok := p.(*constN)
			if !ok {
				parts = append(parts, p)
				continue
			}
			s := ToString(k.v)
			if last := len(parts) - 1; last >= 0 {
				if lk, ok := parts[last].(*constN); ok {
					parts[last] = &constN{v: lk.v.(string) + s, r: hcl.RangeBetween(lk.r, k.r)}
					continue
				}
			}
			parts = append(parts, &constN{v: s, r: k.r})
		}
		x.parts = parts
	}
	return n
}

func constant(n node) bool {
	switch x := n.(type) {
	case *constN:
		return true
	case *objN:
		return false
	case *getN:
		return constant(x.x)
	case *notN:
		return constant(x.x)
	case *logicN:
		return constant(x.a) && constant(x.b)
	case *cmpN:
		return constant(x.a) && constant(x.b)
	case *nullN:
		return constant(x.x)
	case *condN:
		return constant(x.c) && constant(x.a) && constant(x.b)
	case *listN:
		for _, e := range x.elems {
			if !constant(e) {
				return false
			}
		}
		return true
	case *tmplN:
		for _, p := range x.parts {
			if !constant(p) {
				return false
			}
		}
		return true
	case *callN:
		for _, a := range x.args {
			if !constant(a) {
				return false
			}
		}
		return true
	}
	return false
}

// usesOpenLibs reports whether n calls a function that needs Lua's
// string library.
func usesOpenLibs(n node) bool {
	found := false
	walk(n, func(n node) {
		if c, ok := n.(*callN); ok && slices.Contains(openLibFuncs, c.fn) {
			found = true
		}
	})
	return found
}

func walk(n node, f func(node)) {
	if n == nil {
		return
	}
	f(n)
	switch x := n.(type) {
	case *getN:
		walk(x.x, f)
	case *notN:
		walk(x.x, f)
	case *logicN:
		walk(x.a, f)
		walk(x.b, f)
	case *cmpN:
		walk(x.a, f)
		walk(x.b, f)
	case *nullN:
		walk(x.x, f)
	case *condN:
		walk(x.c, f)
		walk(x.a, f)
		walk(x.b, f)
	case *listN:
		for _, e := range x.elems {
			walk(e, f)
		}
	case *tmplN:
		for _, p := range x.parts {
			walk(p, f)
		}
	case *callN:
		for _, a := range x.args {
			walk(a, f)
		}
	}
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
