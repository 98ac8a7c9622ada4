package health

import (
	"testing"
)

// TestSemantics pins the meaning of the language on small cases. Each
// expression is evaluated in Go and in the generated Lua, with constant
// folding on and off, and all four must give the expected value.
func TestSemantics(t *testing.T) {
	obj := `{
	  "metadata": {"name": "db", "generation": 3, "labels": {"app.kubernetes.io/name": "pg"}},
	  "spec": {"replicas": 3, "big": 9007199254740993, "ratio": 0.1, "neg": -2},
	  "status": {
	    "phase": "Ready", "replicas": 3, "readyReplicas": 2, "observedGeneration": 3,
	    "message": "", "ok": true, "count": "3", "empty": [], "emptyObj": {},
	    "nodes": ["a", null, "b"],
	    "nested": {"drop": null, "keep": 1},
	    "conditions": [
	      {"type": "Progressing", "status": "True"},
	      "not-an-object",
	      {"type": "Ready", "status": "False", "message": "pods not ready"},
	      {"type": "Ready", "status": "True"}
	    ],
	    "unicode": "Ünïcode"
	  }
	}`
	scope := Scope{Env: map[string]any{"name": "prod", "warn": "healthy", "n": 2.0}, Platform: map[string]any{"name": "acme"}}
	for _, tc := range []struct {
		expr, want string
	}{
		// Navigation is null-safe; lists are 0-based; nulls disappear.
		{`obj.status.phase`, "s5:Ready"},
		{`obj.status.missing.deeper`, "null"},
		{`obj.status.phase.length`, "null"},
		{`obj.metadata.labels["app.kubernetes.io/name"]`, "s2:pg"},
		{`obj.status.nodes[0]`, "s1:a"},
		{`obj.status.nodes[1]`, "s1:b"},
		{`obj.status.nodes[2]`, "null"},
		{`obj.status.nodes.a`, "null"},
		{`obj.status.nested[0]`, "null"},
		{`obj.status.nested`, "{s4:keep=n1}"},
		{`obj.status.conditions[1].type`, "null"},
		{`obj[env.name]`, "null"},
		{`obj.status[env.n]`, "null"},
		// Numbers are doubles; Lua's formatting.
		{`obj.spec.big`, "n9007199254740992"},
		{`obj.spec.ratio`, "n0.1"},
		{`"${obj.spec.neg} ${obj.spec.ratio} ${1e21} ${-0} ${0.5}"`, "s18:-2 0.1 1e+21 0 0.5"},
		// Equality: same type and value only; nothing converts.
		{`obj.status.replicas == 3`, "true"},
		{`obj.status.count == 3`, "false"},
		{`obj.status.count != 3`, "true"},
		{`obj.status.count == "3"`, "true"},
		{`obj.status.replicas == obj.spec.replicas`, "true"},
		{`obj.status.readyReplicas == obj.spec.replicas`, "false"},
		{`obj.status.ok == true`, "true"},
		{`obj.status.ok != false`, "true"},
		// Any comparison with null, a list or an object is false...
		{`obj.status.missing == "x"`, "false"},
		{`obj.status.missing != "x"`, "false"},
		{`obj.status.missing == obj.status.other`, "false"},
		{`obj.status.empty == obj.status.empty`, "false"},
		{`obj.status.nested != obj.status.nested`, "false"},
		{`obj.status.missing < 1`, "false"},
		// ...except with the literal null, which tests presence.
		{`obj.status.missing == null`, "true"},
		{`obj.status.phase == null`, "false"},
		{`null != obj.status.phase`, "true"},
		{`obj.status.nested.drop == null`, "true"},
		// Ordering: numbers with numbers, strings with strings.
		{`obj.status.readyReplicas < obj.spec.replicas`, "true"},
		{`obj.status.readyReplicas >= 2`, "true"},
		{`obj.status.readyReplicas > 2`, "false"},
		{`obj.status.count < 4`, "false"},
		{`obj.status.count <= "3"`, "true"},
		{`"2026-01-02T00:00:00Z" > "2026-01-01T23:59:59Z"`, "true"},
		{`"B" < "a"`, "true"},
		// Booleans: only true is true.
		{`obj.status.ok && obj.status.phase == "Ready"`, "true"},
		{`obj.status.phase && true`, "false"},
		{`obj.status.missing || obj.status.ok`, "true"},
		{`!obj.status.missing`, "true"},
		{`!obj.status.ok`, "false"},
		{`!obj.status.phase`, "true"},
		{`obj.status.count ? "yes" : "no"`, "s2:no"},
		{`obj.status.ok ? obj.status.phase : null`, "s5:Ready"},
		{`false ? 1 : obj.status.missing`, "null"},
		// Templates: always a string; null and collections vanish.
		{`"phase=${obj.status.phase} missing=${obj.status.missing} ok=${obj.status.ok} list=${obj.status.nodes[5]}"`, "s34:phase=Ready missing= ok=true list="},
		{`"${obj.status.phase}"`, "s5:Ready"},
		{`"${obj.status.missing}"`, "s0:"},
		{`"%{if obj.status.ok}up%{else}down%{endif}"`, "s2:up"},
		{`"%{if obj.status.missing}up%{else}down%{endif}"`, "s4:down"},
		// Lists drop nulls.
		{`[obj.status.missing, "x", 1]`, "{n1=s1:x,n2=n1}"},
		{`[]`, "{}"},
		// Functions.
		{`condition(obj, "Ready").status`, "s5:False"},
		{`condition(obj, "Ready").message`, "s14:pods not ready"},
		{`condition(obj, "Missing")`, "null"},
		{`condition(obj.status, "Ready")`, "null"},
		{`condition(obj, obj.status.missing)`, "null"},
		{`condition(obj, obj.status.replicas)`, "null"},
		{`contains(["Ready", "Running"], obj.status.phase)`, "true"},
		{`contains(["3"], obj.status.replicas)`, "false"},
		{`contains(obj.status.nodes, "b")`, "true"},
		{`contains(obj.status.nested, 1)`, "false"},
		{`contains(obj.status.missing, 1)`, "false"},
		{`contains([obj.status.missing], obj.status.missing)`, "false"},
		{`length(obj.status.nodes)`, "n2"},
		{`length(obj.status.conditions)`, "n4"},
		{`length(obj.status.nested)`, "n1"},
		{`length(obj.status.unicode)`, "n9"},
		{`length(obj.status.empty)`, "n0"},
		{`length(obj.status.emptyObj)`, "n0"},
		{`length(obj.status.missing)`, "n0"},
		{`length(obj.status.replicas)`, "n0"},
		{`lower(obj.status.unicode)`, "s9:ünïcode"},
		{`upper(obj.status.phase)`, "s5:READY"},
		{`lower(obj.status.replicas)`, "null"},
		{`startswith(obj.status.phase, "Re")`, "true"},
		{`startswith(obj.status.phase, "")`, "true"},
		{`startswith(obj.status.phase, "Ready!")`, "false"},
		{`startswith(obj.status.replicas, "3")`, "false"},
		{`coalesce(obj.status.missing, obj.status.message, "fallback")`, "s8:fallback"},
		{`coalesce(obj.status.missing, obj.status.replicas)`, "n3"},
		{`coalesce(obj.status.missing)`, "null"},
		{`coalesce(obj.status.ok, "x")`, "true"},
		// env and platform are constants of the environment.
		{`env.warn == "healthy"`, "true"},
		{`env.missing == "healthy"`, "false"},
		{`"${platform.name}/${env.name}"`, "s9:acme/prod"},
		{`-1`, "n-1"},
	} {
		for _, fold := range []bool{true, false} {
			n, diags := checkExpr(tc.expr, scope, fold)
			if diags.HasErrors() {
				t.Errorf("%s: %s", tc.expr, diags.Error())
				continue
			}
			goVal, luaVal := runBoth(t, n, []byte(obj))
			if goVal != tc.want {
				t.Errorf("%s (fold=%v): Go gives %s, want %s", tc.expr, fold, goVal, tc.want)
			}
			if luaVal != tc.want {
				t.Errorf("%s (fold=%v): Lua gives %s, want %s\n%s", tc.expr, fold, luaVal, tc.want, exprScript(n))
			}
		}
	}
}
