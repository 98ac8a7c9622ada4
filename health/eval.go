package health

import (
	"cmp"
	"strings"
)

// eval computes n over obj in Go. It is total: every expression has a
// value on every object, as the Lua must (a Lua error would make Argo CD
// report the resource as Unknown).
func eval(n node, obj any) any {
	switch x := n.(type) {
	case *constN:
		return x.v
	case *objN:
		return obj
	case *badN:
		return nil
	case *getN:
		return index(eval(x.x, obj), x.key)
	case *notN:
		return !truthy(eval(x.x, obj))
	case *logicN:
		a := truthy(eval(x.a, obj))
		b := truthy(eval(x.b, obj))
		if x.and {
			return a && b
		}
		return a || b
	case *cmpN:
		return compare(x.op, eval(x.a, obj), eval(x.b, obj))
	case *nullN:
		return (eval(x.x, obj) == nil) != x.neg
	case *condN:
		if truthy(eval(x.c, obj)) {
			return eval(x.a, obj)
		}
		return eval(x.b, obj)
	case *listN:
		// A null element is dropped, as it is in a Lua list.
		out := make([]any, 0, len(x.elems))
		for _, e := range x.elems {
			if v := eval(e, obj); v != nil {
				out = append(out, v)
			}
		}
		return out
	case *tmplN:
		var b strings.Builder
		for _, p := range x.parts {
			b.WriteString(ToString(eval(p, obj)))
		}
		return b.String()
	case *callN:
		args := make([]any, len(x.args))
		for i, a := range x.args {
			args[i] = eval(a, obj)
		}
		return call(x.fn, args)
	}
	panic("health: unknown node")
}

// truthy is how a value counts in a boolean position: only true is true;
// null, strings, numbers and collections are all false.
func truthy(v any) bool {
	b, ok := v.(bool)
	return ok && b
}

func index(v any, key any) any {
	switch k := key.(type) {
	case string:
		if m, ok := v.(map[string]any); ok {
			return m[k]
		}
	case int:
		if l, ok := v.([]any); ok && k < len(l) {
			return l[k]
		}
	}
	return nil
}

func scalar(v any) bool {
	switch v.(type) {
	case bool, float64, string:
		return true
	}
	return false
}

// compare implements the comparison operators. Equality holds between
// scalars of the same type and value; != holds between scalars that are
// not equal (including a string and a number). Ordering compares numbers
// with numbers and strings with strings (byte by byte). Anything involving
// null, a list or an object is false, whatever the operator.
func compare(op string, a, b any) bool {
	if !scalar(a) || !scalar(b) {
		return false
	}
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	}
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return ordered(op, x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return ordered(op, x, y)
		}
	}
	return false
}

// ordered applies an ordering operator to two values of one type.
func ordered[T cmp.Ordered](op string, x, y T) bool {
	switch op {
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	case ">=":
		return x >= y
	}
	return false
}

func call(fn string, args []any) any {
	switch fn {
	case "condition":
		t, ok := args[1].(string)
		if !ok {
			return nil
		}
		cs, ok := index(index(args[0], "status"), "conditions").([]any)
		if !ok {
			return nil
		}
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok && m["type"] == t {
				return m
			}
		}
		return nil
	case "contains":
		l, ok := args[0].([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if compare("==", e, args[1]) {
				return true
			}
		}
		return false
	case "length":
		switch x := args[0].(type) {
		case string:
			return float64(len(x))
		case []any:
			return float64(len(x))
		case map[string]any:
			return float64(len(x))
		}
		return float64(0)
	case "lower":
		if s, ok := args[0].(string); ok {
			return strings.ToLower(s)
		}
		return nil
	case "upper":
		if s, ok := args[0].(string); ok {
			return strings.ToUpper(s)
		}
		return nil
	case "startswith":
		s, ok1 := args[0].(string)
		p, ok2 := args[1].(string)
		return ok1 && ok2 && strings.HasPrefix(s, p)
	case "coalesce":
		for _, a := range args {
			if a != nil && a != "" {
				return a
			}
		}
		return nil
	}
	panic("health: unknown function " + fn)
}
