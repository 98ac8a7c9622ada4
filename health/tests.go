package health

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/health/luavm"
	"github.com/platc/platc/lang"
)

// Test is one test block of a health rule, checked and ready to run.
type Test struct {
	Kind string // the rule's "group/Kind"
	Name string
	// Object is the sample's path: the object attribute joined to the
	// directory of the file that declares the test (slash-separated).
	Object string
	Want   string
	// WantMessage is checked only when HasWantMessage is set.
	WantMessage    string
	HasWantMessage bool
	// Env overrides env.* for this test; nil when the test sets none.
	Env   map[string]any
	Block *lang.HealthTest
}

// Tests checks the test blocks of h: attribute values must be constants
// of the right type and want one of Statuses. It does not read the
// sample files; Run does.
func Tests(h *lang.Health) ([]*Test, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var tests []*Test
	for _, b := range h.Tests {
		t, ok, ds := decodeTest(h, b)
		diags = append(diags, ds...)
		if ok {
			tests = append(tests, t)
		}
	}
	return tests, diags
}

// decodeTest checks one test block; ok is false when it has an error.
func decodeTest(h *lang.Health, b *lang.HealthTest) (t *Test, ok bool, diags hcl.Diagnostics) {
	t = &Test{Kind: h.Kind, Name: b.Name, Block: b}
	ok = true
	for _, req := range []struct {
		a    *hcl.Attribute
		name string
	}{{b.Object, "object"}, {b.Want, "want"}} {
		if req.a == nil {
			diags = append(diags, diag.Error(b.DeclRange, "Missing required argument",
				fmt.Sprintf("The argument %q is required, but no definition was found. Add it to the test block.", req.name)))
			ok = false
		}
	}
	if b.Object != nil {
		p, ds := testString(b.Object, "test object", true)
		diags = append(diags, ds...)
		good := !ds.HasErrors()
		if good && (p == "" || filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p))) {
			diags = append(diags, diag.Error(b.Object.Expr.Range(), "Invalid test object",
				"object is the path of a YAML or JSON file holding the resource, relative to the file that declares the test, such as \"testdata/ready.yaml\"."))
			good = false
		}
		ok = ok && good
		t.Object = path.Join(filepath.ToSlash(filepath.Dir(h.DeclRange.Filename)), filepath.ToSlash(p))
	}
	if b.Want != nil {
		w, ds := testString(b.Want, "want", true)
		diags = append(diags, ds...)
		good := !ds.HasErrors()
		if good && !slices.Contains(Statuses, w) {
			msg := fmt.Sprintf("%q is not a health status a rule can give. Use one of %s.", w, strings.Join(Statuses, ", "))
			if s := diag.Suggest(w, Statuses); s != "" {
				msg = fmt.Sprintf("%q is not a health status a rule can give; did you mean %q? Use one of %s.", w, s, strings.Join(Statuses, ", "))
			}
			diags = append(diags, diag.Error(b.Want.Expr.Range(), "Invalid want", msg))
			good = false
		}
		ok = ok && good
		t.Want = w
	}
	if b.WantMessage != nil {
		m, ds := testString(b.WantMessage, "want_message", false)
		diags = append(diags, ds...)
		ok = ok && !ds.HasErrors()
		t.WantMessage, t.HasWantMessage = m, true
	}
	if b.Env != nil {
		env, good, ds := testEnv(b.Env)
		diags = append(diags, ds...)
		ok = ok && good
		t.Env = env
	}
	return t, ok, diags
}

// testString is a test attribute that must be a constant string; a
// required one may not be null either.
func testString(a *hcl.Attribute, what string, required bool) (string, hcl.Diagnostics) {
	v, ds := constValue(a)
	if ds.HasErrors() {
		return "", ds
	}
	if v == nil && required {
		// null is the same as leaving a required attribute out.
		return "", hcl.Diagnostics{diag.Error(a.Expr.Range(), "Missing required argument",
			fmt.Sprintf("The argument %q is required, but it is set to null. Give it a value in the test block.", a.Name))}
	}
	s, isStr := v.(string)
	if !isStr {
		return "", hcl.Diagnostics{diag.Error(a.Expr.Range(), "Invalid "+what, fmt.Sprintf("%s must be a string; got %s.", a.Name, typeName(v)))}
	}
	return s, nil
}

// testEnv is a test's env: a constant object of env.* values.
func testEnv(a *hcl.Attribute) (map[string]any, bool, hcl.Diagnostics) {
	v, ds := constValue(a)
	m, isObj := v.(map[string]any)
	switch {
	case ds.HasErrors():
		return nil, false, ds
	case !isObj:
		return nil, false, append(ds, diag.Error(a.Expr.Range(), "Invalid test env",
			"env holds env.* values for this test only, such as env = { ceph_health_warn = \"healthy\" }."))
	}
	return m, true, ds
}

// constValue evaluates an attribute that may not refer to anything.
func constValue(a *hcl.Attribute) (any, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return nil, diags
	}
	return ctyValue(v, a.Expr.Range())
}

// ctyValue converts a known cty value into the value model.
func ctyValue(v cty.Value, r hcl.Range) (any, hcl.Diagnostics) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsWhollyKnown() {
		return nil, hcl.Diagnostics{diag.Error(r, "Unknown value", "This value must be known when the platform is compiled.")}
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, hcl.Diagnostics{diag.Error(r, "Unsupported value", fmt.Sprintf("This value cannot be used here: %s.", err))}
	}
	out, err := DecodeJSON(b)
	if err != nil {
		return nil, hcl.Diagnostics{diag.Error(r, "Unsupported value", fmt.Sprintf("This value cannot be used here: %s.", err))}
	}
	return out, nil
}

// WithEnv returns s with env.* overridden by env (nil leaves s as is).
func (s Scope) WithEnv(env map[string]any) Scope {
	if env == nil {
		return s
	}
	merged := maps.Clone(s.Env)
	if merged == nil {
		merged = map[string]any{}
	}
	maps.Copy(merged, env)
	return Scope{Env: merged, Platform: s.Platform}
}

// Outcome is the result of running one test.
type Outcome struct {
	Test *Test
	// Got is platc's own evaluation; Lua is what the emitted script
	// returns in a VM set up as Argo CD sets it up.
	Got Result
	Lua luavm.Result
	// Err is a problem that kept the test from running: an unreadable
	// sample or a rule that no longer compiles under the test's env.
	Err error
	// Pass is true when Got matches the test and Lua agrees with Got.
	Pass bool
	// Why says what went wrong when Pass is false.
	Why string
}

// Run runs t against rule (compiled for the test's scope) on the sample
// read by load. It evaluates the rule in Go and runs its Lua, and fails
// the test if the two disagree: that would be a platc bug, and the Lua is
// what Argo CD will actually run.
func Run(t *Test, rule *Rule, load func(path string) ([]byte, error)) Outcome {
	o := Outcome{Test: t}
	data, err := load(t.Object)
	if err != nil {
		o.Err = err
		o.Why = fmt.Sprintf("cannot read %s: %v", t.Object, err)
		return o
	}
	obj, err := DecodeObject(data, t.Object)
	if err != nil {
		o.Err = err
		o.Why = fmt.Sprintf("%s is not a valid object: %v", t.Object, err)
		return o
	}
	o.Got = rule.Eval(obj)
	js, err := json.Marshal(obj)
	if err != nil {
		o.Err = err
		o.Why = err.Error()
		return o
	}
	// The Lua gets the object as Argo CD does, from JSON; the sample's
	// own bytes would do as well, but YAML first has to become JSON.
	o.Lua, err = luavm.Run(rule.Lua, rule.UseOpenLibs, jsonOf(data, t.Object, js))
	switch {
	case err != nil:
		o.Why = fmt.Sprintf("platc bug: the Lua script fails in Argo CD's VM: %v", err)
	case o.Lua != luavm.Result(o.Got):
		o.Why = fmt.Sprintf("platc bug: the Lua script gives %s %q but platc's evaluation gives %s", o.Lua.Status, o.Lua.Message, o.Got)
	case o.Got.Status != t.Want:
		o.Why = fmt.Sprintf("got %s, want %s", o.Got, t.Want)
	case t.HasWantMessage && o.Got.Message != t.WantMessage:
		o.Why = fmt.Sprintf("got message %q, want %q", o.Got.Message, t.WantMessage)
	default:
		o.Pass = true
	}
	return o
}

// jsonOf gives the Lua side the sample in JSON with its original numbers
// and nulls, so Argo CD's own conversion (not platc's normalised copy) is
// what the script sees.
func jsonOf(data []byte, name string, fallback []byte) []byte {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		return data
	}
	if j, err := yamlToJSON(data); err == nil {
		return j
	}
	return fallback
}
