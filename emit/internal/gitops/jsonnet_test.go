package gitops_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-jsonnet"

	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/emit/internal/gitops"
)

// argoEnvsubst is a simulated part: it is what Argo CD's repo server does
// to every Jsonnet variable before handing it to Jsonnet (Env.Envsubst in
// pkg/apis/application/v1alpha1: os.Expand over the build environment,
// "$$" for "$"). Unit tests do not run a repo server; the e2e does.
func argoEnvsubst(env map[string]string, s string) string {
	return os.Expand(s, func(k string) string {
		if k == "$" {
			return "$"
		}
		return env[k]
	})
}

// A Jsonnet variable that is not a string reaches Jsonnet as the data the
// HCL says, through the Jsonnet library Argo CD's repo server uses
// (go-jsonnet, TLACode and ExtCode for code: true), even when Argo CD's
// build environment holds a value made to break out of a JSON string, and
// when the strings hold Jsonnet syntax: nothing an author writes runs.
func TestJsonnetVariablesAreData(t *testing.T) {
	p := emittest.Compile(t, "jsonnet", []byte(`
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
environment "prod" {}
app "dash" {
  namespace = "monitoring"
  source {
    path = "apps/dash"
    directory {
      jsonnet {
        ext_vars = {
          replicas = 3
          name     = "$ARGOCD_APP_NAME"
          debug    = false
        }
        tlas = {
          alerts = {
            channels = ["#ops", "<pager> & \"co\""]
            code     = "std.native('exec')('id') + (import '/etc/passwd')"
            tpl      = "$ARGOCD_APP_NAME"
            "$key"   = null
            window   = -7.5
          }
          plain = "1 + 1"
        }
      }
    }
  }
}
`), "prod")
	app := gitops.App(p, p.App("dash"))
	j := app.Spec.Source.Directory.Jsonnet
	// A build environment value holding a quote: substituted into JSON
	// text, it would end the string and run what follows.
	env := map[string]string{"ARGOCD_APP_NAME": `x" + std.native("exec")("id") + "`}
	vm := jsonnet.MakeVM()
	for _, v := range j.TLAs {
		if v.Code {
			vm.TLACode(v.Name, argoEnvsubst(env, v.Value))
		} else {
			vm.TLAVar(v.Name, argoEnvsubst(env, v.Value))
		}
	}
	for _, v := range j.ExtVars {
		if v.Code {
			vm.ExtCode(v.Name, argoEnvsubst(env, v.Value))
		} else {
			vm.ExtVar(v.Name, argoEnvsubst(env, v.Value))
		}
	}
	out, err := vm.EvaluateAnonymousSnippet("main.jsonnet", `function(alerts, plain) {
  alerts: alerts, plain: plain,
  ext: { replicas: std.extVar("replicas"), name: std.extVar("name"), debug: std.extVar("debug") },
}`)
	if err != nil {
		t.Fatalf("Jsonnet refused the variables: %v\n%+v", err, j)
	}
	var got any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(`{
  "alerts": {
    "channels": ["#ops", "<pager> & \"co\""],
    "code": "std.native('exec')('id') + (import '/etc/passwd')",
    "tpl": "$ARGOCD_APP_NAME",
    "$key": null,
    "window": -7.5
  },
  "plain": "1 + 1",
  "ext": {"replicas": 3, "name": "x\" + std.native(\"exec\")(\"id\") + \"", "debug": false}
}`), &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Jsonnet read the variables differently (-want +got):\n%s", diff)
	}
	// Strings stay strings (Argo CD substitutes into them, as it
	// documents); everything else is code: true.
	for _, v := range append(j.TLAs, j.ExtVars...) {
		if str := v.Name == "plain" || v.Name == "name"; v.Code == str {
			t.Errorf("%s: code = %v", v.Name, v.Code)
		}
		if v.Code && strings.Contains(v.Value, "$") {
			t.Errorf("%s: %s holds a '$' Argo CD would substitute", v.Name, v.Value)
		}
	}
}
