package compiler

import (
	"fmt"
	"testing"
	"time"

	"github.com/platc/platc/lang"
)

// Every built-in class carries the RFC 3.8.5 figures as its Default,
// untouched by a platform's class block, which changes only Timeouts.
func TestBuiltinClassDefaults(t *testing.T) {
	src := `platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

class "operator" {
  timeouts {
    sync = "1m"
  }
}
`
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p, diags := Compile(m, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	got := map[string]string{}
	for _, c := range p.Classes {
		if !c.BuiltIn {
			t.Errorf("class %q not marked built-in", c.Name)
		}
		got[c.Name] = c.Default.Sync.String() + "/" + c.Default.Health.String()
		if c.Name == "operator" && c.Timeouts.Sync != time.Minute {
			t.Errorf("operator's sync timeout = %v, want the override", c.Timeouts.Sync)
		}
	}
	want := map[string]string{
		"database-cluster": "15m0s/15m0s",
		"operator":         "10m0s/10m0s",
		"simple":           "5m0s/5m0s",
		"storage-cluster":  "30m0s/30m0s",
		"vault":            "15m0s/15m0s",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("built-in defaults = %v, want %v", got, want)
	}
}
