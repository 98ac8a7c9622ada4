package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
)

func healthOf(p *ir.Program) []string {
	var out []string
	for _, h := range p.Health {
		lua := "no Lua"
		if h.Lua != "" {
			lua = "Lua"
		}
		out = append(out, fmt.Sprintf("%s=%s %s openLibs=%v", h.Key(), h.Origin, lua, h.UseOpenLibs))
	}
	return out
}

// User rules beat built-in rules, which beat Argo CD's own checks; the
// Application rule is always there; kinds nothing uses are not emitted.
func TestHealthPrecedence(t *testing.T) {
	m := parse(t, `
app "storage" {
  custom_resources = [
    "ceph.rook.io/CephCluster",       # Argo CD has a check, platc's built-in wins
    "ceph.rook.io/CephBlockPool",     # built-in only
    "cert-manager.io/Certificate",    # Argo CD only
    "kubevirt.io/KubeVirt",           # built-in, needs the string library
    "example.com/Widget",             # user only
    "acid.zalan.do/postgresql",       # user replaces built-in and Argo CD
  ]
}
health "example.com/Widget" {
  healthy = obj.status.ready == true
}
health "acid.zalan.do/postgresql" {
  healthy = obj.status.PostgresClusterStatus == "Running"
}
health "example.com/Unused" {
  healthy = true
}
`)
	p, diags := Compile(m, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	want := []string{
		"acid.zalan.do/postgresql=user Lua openLibs=false",
		"argoproj.io/Application=built-in Lua openLibs=false",
		"ceph.rook.io/CephBlockPool=built-in Lua openLibs=false",
		"ceph.rook.io/CephCluster=built-in Lua openLibs=false",
		"cert-manager.io/Certificate=argocd no Lua openLibs=false",
		"example.com/Widget=user Lua openLibs=false",
		"kubevirt.io/KubeVirt=built-in Lua openLibs=true",
	}
	if diff := cmp.Diff(want, healthOf(p)); diff != "" {
		t.Errorf("health rules (-want +got):\n%s", diff)
	}
	for _, h := range p.Health {
		if h.Key() == "acid.zalan.do/postgresql" && !strings.Contains(h.Lua, `"Running"`) {
			t.Errorf("postgresql should use the user's rule:\n%s", h.Lua)
		}
	}
}

// A user rule for argoproj.io/Application replaces the built-in one.
func TestHealthUserApplication(t *testing.T) {
	p, diags := Compile(parse(t, `
health "argoproj.io/Application" {
  healthy = obj.status.health.status == "Healthy" && obj.status.sync.status == "Synced"
}
`), Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if diff := cmp.Diff([]string{"argoproj.io/Application=user Lua openLibs=false"}, healthOf(p)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// INV-7: a kind nobody can assess fails at its list element; expression
// errors in health blocks are compiler diagnostics with their position,
// whether or not an app uses the kind.
func TestHealthDiagnostics(t *testing.T) {
	m := parse(t, `
environment "lab" {
  ceph_health_warn = "ignore"
}
app "widgets" {
  custom_resources = ["example.com/Gadget", "metallb.io/IPAddressPool"]
}
health "example.com/Unused" {
  healthy = obj.status.ready + 1
  test "t" {
    object = "x.yaml"
    want   = "Ready"
  }
}
`)
	_, diags := CompileAll(m, Options{})
	var got []string
	for _, d := range diags {
		got = append(got, diag.At(*d.Subject)+": "+d.Summary)
	}
	want := []string{
		"platform.hcl:7:22: Invalid health setting",
		"platform.hcl:10:23: Custom resource without a health rule",
		"platform.hcl:13:13: Arithmetic in health rule",
		"platform.hcl:16:14: Invalid want",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\n%s", diff, diags.Error())
	}
}

// The environment setting reaches the built-in rule's Lua as a constant.
func TestHealthSetting(t *testing.T) {
	m := parse(t, `
environment "lab" {
  ceph_health_warn = "healthy"
}
environment "production" {}
app "ceph" {
  custom_resources = ["ceph.rook.io/CephCluster"]
}
`)
	lua := map[string]string{}
	for _, env := range []string{"lab", "production"} {
		p, diags := Compile(m, Options{Env: env})
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		for _, h := range p.Health {
			if h.Kind == "CephCluster" {
				lua[env] = h.Lua
			}
		}
	}
	if lua["lab"] == lua["production"] {
		t.Error("ceph_health_warn does not change the CephCluster script")
	}
	code := func(lua string) string { // the script without its comments, which quote the HCL
		var lines []string
		for _, l := range strings.Split(lua, "\n") {
			if !strings.HasPrefix(l, "--") {
				lines = append(lines, l)
			}
		}
		return strings.Join(lines, "\n")
	}
	if !strings.Contains(code(lua["production"]), "waiting for HEALTH_OK") || strings.Contains(code(lua["lab"]), "waiting for HEALTH_OK") {
		t.Errorf("the HEALTH_WARN hint should only be in the default script")
	}
}

// Argo CD's own checks count only from the release that ships them, at
// the version the platform declares; undeclared means a current Argo CD.
func TestArgoCDCoversByVersion(t *testing.T) {
	for _, c := range []struct {
		kind, version string
		want          bool
	}{
		{"ceph.rook.io/CephObjectStore", "v3.2.6", false},
		{"ceph.rook.io/CephObjectStore", "v3.3.0", true},
		{"ceph.rook.io/CephObjectStore", "3.5", true},
		{"ceph.rook.io/CephObjectStore", "", true},
		{"kyverno.io/Policy", "v3.0.12", false},
		{"kyverno.io/Policy", "v3.1.0", true},
		{"cert-manager.io/Certificate", "v3.0.0", true},
		{"example.com/Widget", "", false},
		{"cert-manager.io/Certificate", "latest", true},
	} {
		if got, _ := ArgoCDCovers(c.kind, c.version); got != c.want {
			t.Errorf("ArgoCDCovers(%q, %q) = %v, want %v", c.kind, c.version, got, c.want)
		}
	}
}
