package health

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The generated Lua is Lua 5.1 as gopher-lua runs it. It only uses the
// base library (type, tostring, pairs, ipairs, select), which Argo CD
// always opens, except lower, upper and startswith, which need the string
// library and make the rule ask for useOpenLibs. Every helper is total: no
// object can make the script raise an error.

// luaHelpers are the runtime helpers, emitted in this order when used.
// Each entry lists the helpers it calls itself.
var luaHelpers = []struct {
	name, code string
	needs      []string
}{
	{"get", `local function get(v, k)
  if type(v) == "table" then return v[k] end
  return nil
end`, nil},
	{"scalar", `local function scalar(v)
  local t = type(v)
  return t == "string" or t == "number" or t == "boolean"
end`, nil},
	{"eq", `local function eq(a, b)
  return scalar(a) and scalar(b) and a == b
end`, []string{"scalar"}},
	{"ne", `local function ne(a, b)
  return scalar(a) and scalar(b) and a ~= b
end`, []string{"scalar"}},
	{"lt", `local function lt(a, b)
  local ta, tb = type(a), type(b)
  if ta == tb and (ta == "number" or ta == "string") then return a < b end
  return false
end`, nil},
	{"le", `local function le(a, b)
  local ta, tb = type(a), type(b)
  if ta == tb and (ta == "number" or ta == "string") then return a <= b end
  return false
end`, nil},
	{"pick", `local function pick(c, a, b)
  if c then return a end
  return b
end`, nil},
	{"list", `local function list(...)
  local t = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if v ~= nil then t[#t + 1] = v end
  end
  return t
end`, nil},
	{"str", `local function str(v)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" or t == "boolean" then return tostring(v) end
  return ""
end`, nil},
	{"condition", `local function condition(o, t)
  local cs = get(get(o, "status"), "conditions")
  if type(cs) ~= "table" or type(t) ~= "string" then return nil end
  for _, c in ipairs(cs) do
    if type(c) == "table" and c.type == t then return c end
  end
  return nil
end`, []string{"get"}},
	{"contains", `local function contains(l, v)
  if type(l) ~= "table" then return false end
  for _, x in ipairs(l) do
    if eq(x, v) then return true end
  end
  return false
end`, []string{"eq"}},
	{"length", `local function length(v)
  local t = type(v)
  if t == "string" then return #v end
  if t ~= "table" then return 0 end
  local n = 0
  for _ in pairs(v) do n = n + 1 end
  return n
end`, nil},
	{"lower", `local function lower(s)
  if type(s) ~= "string" then return nil end
  return string.lower(s)
end`, nil},
	{"upper", `local function upper(s)
  if type(s) ~= "string" then return nil end
  return string.upper(s)
end`, nil},
	{"startswith", `local function startswith(s, p)
  if type(s) ~= "string" or type(p) ~= "string" then return false end
  return string.sub(s, 1, #p) == p
end`, nil},
	{"first", `local function first(a, b)
  if a ~= nil and a ~= "" then return a end
  return b
end`, nil},
}

// luaGen writes the Lua for one rule.
type luaGen struct {
	used map[string]bool
}

func (g *luaGen) use(name string) {
	if g.used[name] {
		return
	}
	g.used[name] = true
	for _, h := range luaHelpers {
		if h.name == name {
			for _, n := range h.needs {
				g.use(n)
			}
		}
	}
}

// boolExpr renders n as a Lua expression that is exactly true or false.
func (g *luaGen) boolExpr(n node) string {
	s := g.expr(n)
	if n.typ() == kBool {
		return s
	}
	return "(" + s + " == true)"
}

// expr renders n as a Lua expression with the value model's semantics.
func (g *luaGen) expr(n node) string {
	switch x := n.(type) {
	case *constN:
		return luaValue(x.v)
	case *objN:
		return "obj"
	case *badN:
		return "nil"
	case *getN:
		g.use("get")
		var k string
		switch key := x.key.(type) {
		case string:
			k = luaString(key)
		case int:
			k = strconv.Itoa(key + 1) // Lua lists start at 1
		}
		return "get(" + g.expr(x.x) + ", " + k + ")"
	case *notN:
		return "(" + g.expr(x.x) + " ~= true)"
	case *logicN:
		op := " or "
		if x.and {
			op = " and "
		}
		return "(" + g.boolExpr(x.a) + op + g.boolExpr(x.b) + ")"
	case *cmpN:
		a, b := g.expr(x.a), g.expr(x.b)
		switch x.op {
		case "==":
			// Lua's == already is our equality when one side is a
			// scalar constant: nil and tables never equal a string,
			// number or bool.
			if isScalarConst(x.a) || isScalarConst(x.b) {
				return "(" + a + " == " + b + ")"
			}
			g.use("eq")
			return "eq(" + a + ", " + b + ")"
		case "!=":
			g.use("ne")
			return "ne(" + a + ", " + b + ")"
		case "<":
			g.use("lt")
			return "lt(" + a + ", " + b + ")"
		case "<=":
			g.use("le")
			return "le(" + a + ", " + b + ")"
		case ">":
			g.use("lt")
			return "lt(" + b + ", " + a + ")"
		case ">=":
			g.use("le")
			return "le(" + b + ", " + a + ")"
		}
	case *nullN:
		op := " == nil)"
		if x.neg {
			op = " ~= nil)"
		}
		return "(" + g.expr(x.x) + op
	case *condN:
		g.use("pick")
		return "pick(" + g.boolExpr(x.c) + ", " + g.expr(x.a) + ", " + g.expr(x.b) + ")"
	case *listN:
		if len(x.elems) == 0 {
			return "{}"
		}
		parts := make([]string, len(x.elems))
		for i, e := range x.elems {
			parts[i] = g.expr(e)
		}
		g.use("list")
		return "list(" + strings.Join(parts, ", ") + ")"
	case *tmplN:
		if len(x.parts) == 0 {
			return `""`
		}
		parts := make([]string, len(x.parts))
		for i, p := range x.parts {
			if c, ok := p.(*constN); ok {
				parts[i] = luaString(ToString(c.v))
				continue
			}
			g.use("str")
			parts[i] = "str(" + g.expr(p) + ")"
		}
		return "(" + strings.Join(parts, " .. ") + ")"
	case *callN:
		args := make([]string, len(x.args))
		for i, a := range x.args {
			args[i] = g.expr(a)
		}
		if x.fn == "coalesce" {
			// coalesce(a, b, c) = first(a, first(b, first(c, nil))); a
			// constant that is neither null nor "" ends the chain.
			s := "nil"
			for i, a := range x.args {
				if c, ok := a.(*constN); ok && c.v != nil && c.v != "" {
					s, args = args[i], args[:i]
					break
				}
			}
			for i := len(args) - 1; i >= 0; i-- {
				g.use("first")
				s = "first(" + args[i] + ", " + s + ")"
			}
			return s
		}
		g.use(x.fn)
		return x.fn + "(" + strings.Join(args, ", ") + ")"
	}
	panic(fmt.Sprintf("health: no Lua for %T", n))
}

func isScalarConst(n node) bool {
	c, ok := n.(*constN)
	return ok && scalar(c.v)
}

// luaValue renders a constant as a Lua expression.
func luaValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if strings.HasPrefix(s, "-") {
			return "(" + s + ")"
		}
		return s
	case string:
		return luaString(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = luaValue(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = "[" + luaString(k) + "] = " + luaValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	panic(fmt.Sprintf("health: no Lua for constant %T", v))
}

// luaString quotes s for Lua. Everything outside printable ASCII is a
// decimal byte escape, so the script is plain ASCII whatever s holds.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, `\%03d`, c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// GenerationMessage is the message of a resource held at Progressing
// because its controller has not yet seen its latest spec.
func GenerationMessage(generation, observed float64) string {
	return "waiting for the controller to observe generation " + FormatNumber(generation) +
		" (status is for generation " + FormatNumber(observed) + ")"
}

// script assembles the whole health script of r.
func (r *Rule) script(comments []string) string {
	g := &luaGen{used: map[string]bool{}}
	var body strings.Builder
	w := func(s string) { body.WriteString(s + "\n") }
	w(`local hs = {status = "Progressing", message = ""}`)
	if r.ObservedGeneration {
		g.use("get")
		w(`local generation = get(get(obj, "metadata"), "generation")`)
		w(`local observed = get(get(obj, "status"), "observedGeneration")`)
	}
	branch := "if "
	if r.Degraded != nil {
		w(branch + g.boolExpr(r.Degraded) + " then")
		w(`  hs.status = "Degraded"`)
		branch = "elseif "
	}
	if r.ObservedGeneration {
		w(branch + `type(generation) == "number" and type(observed) == "number" and observed < generation then`)
		w(`  hs.message = "waiting for the controller to observe generation " .. tostring(generation) .. " (status is for generation " .. tostring(observed) .. ")"`)
		w(`  return hs`)
		branch = "elseif "
	}
	w(branch + g.boolExpr(r.Healthy) + " then")
	w(`  hs.status = "Healthy"`)
	if r.Suspended != nil {
		w("elseif " + g.boolExpr(r.Suspended) + " then")
		w(`  hs.status = "Suspended"`)
	}
	w("end")
	if r.Message != nil {
		if r.Message.typ() == kString {
			w("hs.message = " + g.expr(r.Message))
		} else {
			g.use("str")
			w("hs.message = str(" + g.expr(r.Message) + ")")
		}
	}
	w("return hs")

	var out strings.Builder
	for _, c := range comments {
		out.WriteString(strings.TrimRight("-- "+c, " ") + "\n")
	}
	for _, h := range luaHelpers {
		if g.used[h.name] {
			out.WriteString(h.code + "\n")
		}
	}
	out.WriteString(body.String())
	return out.String()
}
