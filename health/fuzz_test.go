package health

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/platc/platc/health/luavm"
	"github.com/platc/platc/lang"
)

// watchdog turns a hang into a crash, which Go's fuzzer saves under
// testdata/fuzz (it does not notice a hang by itself). The limit is
// generous because the machine may be busy.
func watchdog(target string, size int) (stop func()) {
	t := time.AfterFunc(20*time.Second, func() {
		panic(fmt.Sprintf("%s: no result after 20s for a %d-byte input", target, size))
	})
	return func() { t.Stop() }
}

// gen turns fuzz bytes into an expression of the language and an object,
// both drawn from small vocabularies so that paths in the expression meet
// fields of the object.
type gen struct {
	b []byte
	i int
}

func (g *gen) next() int {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return int(g.b[g.i-1])
}

func (g *gen) pick(options ...string) string { return options[g.next()%len(options)] }

var fields = []string{"status", "spec", "metadata", "conditions", "phase", "type", "ready", "n", "s", "x-y", "generation", "observedGeneration", "message", "reason"}

var strs = []string{"", "a", "Ready", "True", "False", "1", "3", "ü", "HEALTH_OK", "x\"y\\z", "line\nbreak", "${not}", "%{no}", "Z", "ready"}

var nums = []string{"0", "1", "-1", "2.5", "1e21", "9007199254740993", "0.1", "-0", "3", "1e-7", "123456789012"}

func hclQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "${", "$${", "%{", "%%{")
	return `"` + r.Replace(s) + `"`
}

func (g *gen) path() string {
	var b strings.Builder
	b.WriteString(g.pick("obj", "obj", "obj", "env", "platform"))
	for n := g.next() % 5; n > 0; n-- {
		switch g.next() % 4 {
		case 0:
			fmt.Fprintf(&b, "[%d]", g.next()%4)
		case 1:
			fmt.Fprintf(&b, "[%s]", hclQuote(g.pick(fields...)))
		default:
			f := g.pick(fields...)
			if strings.Contains(f, "-") {
				fmt.Fprintf(&b, "[%q]", f)
			} else {
				b.WriteString("." + f)
			}
		}
	}
	return b.String()
}

func (g *gen) expr(depth int) string {
	if depth <= 0 {
		switch g.next() % 6 {
		case 0:
			return hclQuote(g.pick(strs...))
		case 1:
			return g.pick(nums...)
		case 2:
			return g.pick("true", "false", "null")
		default:
			return g.path()
		}
	}
	d := depth - 1
	switch g.next() % 16 {
	case 0:
		return g.path()
	case 1:
		return fmt.Sprintf("(%s %s %s)", g.expr(d), g.pick("==", "!=", "<", "<=", ">", ">="), g.expr(d))
	case 2:
		return fmt.Sprintf("(%s %s %s)", g.cond(d), g.pick("&&", "||"), g.cond(d))
	case 3:
		return "!" + g.cond(d)
	case 4:
		return fmt.Sprintf("(%s ? %s : %s)", g.cond(d), g.expr(d), g.expr(d))
	case 5:
		return fmt.Sprintf(`"%s${%s}%s%%{if %s}yes%%{else}${%s}%%{endif}"`, g.pick("a", "", "é"), g.expr(d), g.pick(" ", "-"), g.cond(d), g.expr(d))
	case 6:
		return g.list(d) + fmt.Sprintf("[%d]", g.next()%3)
	case 7:
		return fmt.Sprintf("condition(%s, %s)%s", g.pick("obj", "obj", g.path()), g.pick(`"Ready"`, `"Progressing"`, g.expr(d)), g.pick("", ".status", ".message", ".type", ".observedGeneration"))
	case 8:
		return fmt.Sprintf("contains(%s, %s)", g.pick(g.list(d), g.path()), g.expr(d))
	case 9:
		return fmt.Sprintf("length(%s)", g.pick(g.list(d), g.expr(d)))
	case 10:
		return fmt.Sprintf("%s(%s)", g.pick("lower", "upper"), g.expr(d))
	case 11:
		return fmt.Sprintf("startswith(%s, %s)", g.expr(d), g.expr(d))
	case 12:
		args := []string{g.expr(d)}
		for n := g.next() % 3; n > 0; n-- {
			args = append(args, g.expr(d))
		}
		return "coalesce(" + strings.Join(args, ", ") + ")"
	case 13:
		return fmt.Sprintf("(%s %s null)", g.expr(d), g.pick("==", "!="))
	case 14:
		return fmt.Sprintf("[%s, %s][%d]", g.expr(d), g.expr(d), g.next()%3)
	default:
		return "(" + g.expr(d) + ")"
	}
}

// cond makes an expression for a boolean position.
func (g *gen) cond(depth int) string {
	if depth <= 0 {
		return g.pick("true", "false", g.path())
	}
	d := depth - 1
	switch g.next() % 6 {
	case 0:
		return g.path()
	case 1:
		return fmt.Sprintf("(%s %s %s)", g.expr(d), g.pick("==", "!=", "<", ">="), g.expr(d))
	case 2:
		return fmt.Sprintf("(%s %s %s)", g.cond(d), g.pick("&&", "||"), g.cond(d))
	case 3:
		return "!" + g.cond(d)
	case 4:
		return fmt.Sprintf("(%s %s null)", g.expr(d), g.pick("==", "!="))
	default:
		return g.expr(depth)
	}
}

func (g *gen) list(depth int) string {
	var parts []string
	for n := g.next() % 4; n > 0; n-- {
		parts = append(parts, g.expr(depth))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// value makes a JSON value, with nulls (which Argo CD drops) and numbers
// and strings that stress formatting and comparison.
func (g *gen) value(depth int) any {
	c := g.next() % 9
	if depth <= 0 {
		c %= 5
	}
	switch c {
	case 0:
		return nil
	case 1:
		return g.next()%2 == 0
	case 2:
		return json.Number(g.pick(nums...))
	case 3, 4:
		return g.pick(strs...)
	case 5, 6:
		var l []any
		for n := g.next() % 4; n > 0; n-- {
			l = append(l, g.value(depth-1))
		}
		if g.next()%3 == 0 {
			l = append(l, map[string]any{"type": g.pick("Ready", "Progressing"), "status": g.pick("True", "False"), "message": g.pick(strs...), "observedGeneration": json.Number(g.pick("1", "2"))})
		}
		return l
	default:
		m := map[string]any{}
		for n := g.next() % 5; n > 0; n-- {
			m[g.pick(fields...)] = g.value(depth - 1)
		}
		return m
	}
}

func (g *gen) object() []byte {
	obj := map[string]any{
		"metadata": map[string]any{"name": "x", "generation": json.Number(g.pick("1", "2", "3"))},
		"status":   g.value(3),
		"spec":     g.value(2),
	}
	if m, ok := obj["status"].(map[string]any); ok && g.next()%2 == 0 {
		m["observedGeneration"] = json.Number(g.pick("1", "2", "3"))
		m["conditions"] = g.value(2)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return b
}

var fuzzScope = Scope{
	Env:      map[string]any{"name": "prod", "s": "Ready", "n": 3.0, "status": map[string]any{"phase": "Ready"}},
	Platform: map[string]any{"name": "acme"},
}

// FuzzAgreement generates expressions and objects and checks that the
// generated Lua, run as Argo CD runs it, and the Go evaluation give the
// same value, with and without constant folding; and that a whole rule
// built from the expressions agrees on status and message.
func FuzzAgreement(f *testing.F) {
	for _, seed := range []string{"", "\x01\x02\x03", "hello world, health", "\x07\x00\x01\x05\x02\x09\x03\x04", strings.Repeat("\x05\x0c\x01", 20)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog("FuzzAgreement", len(data))()
		g := &gen{b: data}
		src := g.expr(4)
		objJSON := g.object()
		cond, msg := g.cond(3), g.expr(3)
		for _, fold := range []bool{true, false} {
			n, diags := checkExpr(src, fuzzScope, fold)
			if diags.HasErrors() {
				return // outside the subset or ill-typed: the diagnostics tests cover these
			}
			goVal, luaVal := runBoth(t, n, objJSON)
			if goVal != luaVal {
				t.Fatalf("%s (fold=%v) on %s:\nGo:  %s\nLua: %s\n%s", src, fold, objJSON, goVal, luaVal, exprScript(n))
			}
		}
		rule := fmt.Sprintf("health \"x.io/Fuzz\" {\n  degraded = %s\n  healthy = %s\n  suspended = %s\n  message = %s\n}\n", cond, src, g.cond(2), msg)
		m, diags := lang.ParseHealthFiles([]lang.SourceFile{{Name: "fuzz.hcl", Bytes: []byte(rule)}})
		if diags.HasErrors() || len(m.Health) != 1 {
			return
		}
		for _, opts := range []Options{{}, {noFold: true}} {
			r, diags := Compile(m.Health[0], fuzzScope, opts)
			if diags.HasErrors() {
				return
			}
			checkRuleAgrees(t, r, objJSON)
		}
	})
}

// FuzzCompile feeds arbitrary text to the compiler as a health
// expression: it must never panic, and whatever it accepts must become
// Lua that gopher-lua compiles and runs without error.
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{
		`obj.status.phase == "Ready"`,
		`condition(obj, "Ready").status == "True" && length(obj.status.nodes) > 0`,
		`"${obj.a}%{if obj.b}x%{else}y%{endif}"`,
		`coalesce(obj.a, [1, 2][0], env.x, "z")`,
		`lower(obj.s) == upper("é") || startswith(obj.s, "\n\\\"")`,
		`obj["a-b"][3].c != null ? -1.5e3 : 9007199254740993`,
		`[for x in obj.l : x]`, `obj.a + 1`, `{a = 1}`, `obj.l[*].a`, `f(obj)`,
		"<<EOT\n${obj.a}\nEOT\n",
		strings.Repeat("(", 60) + "true" + strings.Repeat(")", 60),
	} {
		f.Add(seed)
	}
	obj := []byte(`{"metadata":{"generation":2},"status":{"observedGeneration":2,"phase":"Ready","a":[1,null,"x"],"conditions":[{"type":"Ready","status":"True"}]}}`)
	f.Fuzz(func(t *testing.T, src string) {
		defer watchdog("FuzzCompile", len(src))()
		rule := "health \"x.io/Fuzz\" {\n  healthy = " + src + "\n  message = " + src + "\n}\n"
		m, diags := lang.ParseHealthFiles([]lang.SourceFile{{Name: "fuzz.hcl", Bytes: []byte(rule)}})
		if diags.HasErrors() || len(m.Health) != 1 {
			return
		}
		r, diags := Compile(m.Health[0], fuzzScope, Options{Files: m.Files})
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("diagnostic without a range: %s", d.Summary)
			}
		}
		if diags.HasErrors() {
			if r != nil {
				t.Fatal("Compile returned a rule with errors")
			}
			return
		}
		L := lua.NewState()
		_, err := L.LoadString(r.Lua)
		L.Close()
		if err != nil {
			t.Fatalf("invalid Lua for %q: %v\n%s", src, err, r.Lua)
		}
		res, err := luavm.Run(r.Lua, r.UseOpenLibs, obj)
		if err != nil {
			t.Fatalf("Lua fails for %q: %v\n%s", src, err, r.Lua)
		}
		o, _ := DecodeJSON(obj)
		if got := r.Eval(o); luavm.Result(got) != res {
			t.Fatalf("%q: Go %s, Lua %s %q", src, got, res.Status, res.Message)
		}
	})
}
