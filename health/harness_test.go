package health

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/health/luavm"
	"github.com/platc/platc/lang"
)

// The harness compares the two backends on single expressions: Go's
// eval, and the generated Lua run in luavm (Argo CD's VM set-up), each
// encoding the value the same deterministic way.

// luaEnc serialises a Lua value; a table's keys are sorted (numbers
// first, then strings), so a list and an object encode like their Go
// counterparts. It uses table.sort from the table library, which Argo CD
// always opens.
const luaEnc = `local function enc(v)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return tostring(v) end
  if t == "number" then return "n" .. tostring(v) end
  if t == "string" then return "s" .. tostring(#v) .. ":" .. v end
  if t ~= "table" then return "?" .. t end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) == "number" end
    return a < b
  end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = enc(k) .. "=" .. enc(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end
`

// goEnc is luaEnc for Go values: a list's keys are its 1-based positions.
func goEnc(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(x)
	case float64:
		return "n" + FormatNumber(x)
	case string:
		return fmt.Sprintf("s%d:%s", len(x), x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = goEnc(float64(i+1)) + "=" + goEnc(e)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = goEnc(k) + "=" + goEnc(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprintf("?%T", v)
}

// exprScript is a script that returns the encoded value of n as message.
func exprScript(n node) string {
	g := &luaGen{used: map[string]bool{}}
	e := g.expr(n)
	var b strings.Builder
	for _, h := range luaHelpers {
		if g.used[h.name] {
			b.WriteString(h.code + "\n")
		}
	}
	b.WriteString(luaEnc)
	b.WriteString("return {status = \"Healthy\", message = enc(" + e + ")}\n")
	return b.String()
}

// checkExpr parses and checks one expression.
func checkExpr(src string, scope Scope, fold bool) (node, hcl.Diagnostics) {
	e, diags := hclsyntax.ParseExpression([]byte(src), "expr.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	c := &checker{scope: scope, noFold: !fold}
	n := c.expr(e, 0)
	return n, c.diags
}

// runBoth evaluates n on the object given as JSON in Go and in Lua and
// returns both encodings.
func runBoth(t testing.TB, n node, objJSON []byte) (goVal, luaVal string) {
	t.Helper()
	obj, err := DecodeJSON(objJSON)
	if err != nil {
		t.Fatalf("object: %v", err)
	}
	goVal = goEnc(eval(n, obj))
	res, err := runLua(exprScript(n), usesOpenLibs(n), objJSON)
	if err != nil {
		t.Fatalf("Lua failed: %v\n%s", err, exprScript(n))
	}
	return goVal, res.Message
}

// runLua runs script as Argo CD does, within its one-second budget. A
// run that ran out of it is tried once more: on a loaded machine (the
// fuzzers run beside CI) a process can be descheduled for longer than a
// second, and a script that really needs that long runs out again.
func runLua(script string, openLibs bool, objJSON []byte) (luavm.Result, error) {
	res, err := luavm.Run(script, openLibs, objJSON)
	if err != nil && strings.Contains(err.Error(), context.DeadlineExceeded.Error()) {
		res, err = luavm.Run(script, openLibs, objJSON)
	}
	return res, err
}

// parseRule parses one health block from source.
func parseRule(t testing.TB, src string) (*lang.Health, map[string]*hcl.File) {
	t.Helper()
	m, diags := lang.ParseHealthFiles([]lang.SourceFile{{Name: "rule.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if len(m.Health) != 1 {
		t.Fatalf("want one health block, got %d", len(m.Health))
	}
	return m.Health[0], m.Files
}

// checkRuleAgrees runs r's Lua and Go evaluation on objJSON and fails
// when they differ; it returns the Go result.
func checkRuleAgrees(t testing.TB, r *Rule, objJSON []byte) Result {
	t.Helper()
	obj, err := DecodeJSON(objJSON)
	if err != nil {
		t.Fatalf("object: %v", err)
	}
	got := r.Eval(obj)
	lres, err := runLua(r.Lua, r.UseOpenLibs, objJSON)
	if err != nil {
		t.Fatalf("%s: Lua failed: %v\n%s", r.Kind, err, r.Lua)
	}
	if luavm.Result(got) != lres {
		t.Fatalf("%s: Go gives %s, Lua gives %s %q on %s\n%s", r.Kind, got, lres.Status, lres.Message, objJSON, r.Lua)
	}
	return got
}
