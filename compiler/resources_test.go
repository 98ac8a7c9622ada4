package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lang"
)

const resourcePlatform = `
app "ceph-cluster" {
  namespace        = "rook-ceph"
  custom_resources = ["ceph.rook.io/CephCluster"]
  source { path = "apps/ceph" }
  resource "block-storage" {
    kind = "storage.k8s.io/StorageClass"
    name = "ceph-block"
  }
  resource "cluster" {
    kind      = "ceph.rook.io/CephCluster"
    name      = "rook-ceph"
    namespace = "rook-ceph"
  }
}
app "cert-manager" {
  namespace = "cert-manager"
  source { path = "apps/cert-manager" }
  resource "certificates" {
    kind = "apiextensions.k8s.io/CustomResourceDefinition"
    name = "certificates.cert-manager.io"
  }
  resource "webhook" {
    kind      = "apps/Deployment"
    name      = "cert-manager-webhook"
    namespace = "cert-manager"
  }
}
app "postgres" {
  namespace  = "db"
  depends_on = [app.ceph-cluster.resource.block-storage, app.cert-manager.resource.webhook, app.cert-manager.resource.certificates]
  source { path = "apps/postgres" }
}
`

// A resource reference resolves to the resource, implies the edge to its
// app, and the compiler decides what the wait waits for by kind.
func TestResourceDependencies(t *testing.T) {
	p := compile(t, resourcePlatform)
	pg := p.App("postgres")
	var deps []string
	for _, d := range pg.Deps {
		deps = append(deps, d.App.Name+" via "+d.Via)
	}
	if got, want := strings.Join(deps, "; "), "ceph-cluster via app.ceph-cluster.resource.block-storage; cert-manager via app.cert-manager.resource.webhook"; got != want {
		t.Errorf("edges: %s, want %s", got, want)
	}
	var rs []string
	for _, d := range pg.ResourceDeps {
		r := d.Resource
		rs = append(rs, fmt.Sprintf("%s %s %s/%s %s", r.Ref(), r.KindKey(), r.Namespace, r.ResourceName, r.Wait))
	}
	want := []string{
		"app.ceph-cluster.resource.block-storage storage.k8s.io/StorageClass /ceph-block exists",
		"app.cert-manager.resource.certificates apiextensions.k8s.io/CustomResourceDefinition /certificates.cert-manager.io healthy",
		"app.cert-manager.resource.webhook apps/Deployment cert-manager/cert-manager-webhook healthy",
	}
	if got := strings.Join(rs, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("resource deps:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if got := p.App("ceph-cluster").Resources[1].Wait; got != ir.WaitHealthy {
		t.Errorf("CephCluster waits for %q, want healthy (platc's built-in rule)", got)
	}
	// The CRD's health check is Argo CD's own; it is recorded as in force.
	found := false
	for _, h := range p.Health {
		if h.Key() == "apiextensions.k8s.io/CustomResourceDefinition" {
			found = h.Origin == ir.HealthArgoCD
		}
	}
	if !found {
		t.Errorf("the CRD kind's health rule is not in Program.Health as Argo CD's")
	}
	if p.App("postgres").Wave != 1 {
		t.Errorf("postgres is in wave %d, want 1 (after its resources' apps)", p.App("postgres").Wave)
	}
}

func TestResourceDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // summary, then parts of the detail, then "line:col"
	}{
		{"unknown resource with suggestion", `
app "a" {
  resource "block-storage" {
    kind = "storage.k8s.io/StorageClass"
    name = "b"
  }
}
app "c" { depends_on = [app.a.resource.block-storag] }
`, []string{"Reference to undeclared resource", `app "a" declares no resource "block-storag". Did you mean app.a.resource.block-storage?`, "12:25"}},
		{"app without resources", `
app "a" {}
app "c" { depends_on = [app.a.resource.sc] }
`, []string{"Reference to undeclared resource", `app "a" declares no resource blocks`, "7:25"}},
		{"unknown app", `
app "c" { depends_on = [app.nope.resource.sc] }
`, []string{"Reference to undeclared app", `No app "nope"`, "6:25"}},
		{"own resource", `
app "a" {
  resource "sc" {
    kind = "storage.k8s.io/StorageClass"
    name = "b"
  }
  depends_on = [app.a.resource.sc]
}
`, []string{"Self-referential dependency", "app.a depends on itself", "11:17"}},
		{"stack", `
app "a" {
  resource "sc" {
    kind = "storage.k8s.io/StorageClass"
    name = "b"
  }
}
stack "s" {
  depends_on = [app.a.resource.sc]
  app "c" {}
}
`, []string{"Resource dependency on a stack", "Move it to the depends_on of each app of stack.s", "13:17"}},
		{"no health rule", `
app "a" {
  resource "q" {
    kind = "example.com/Queue"
    name = "jobs"
  }
}
`, []string{"Resource without a health rule", `Add a health "example.com/Queue" block`, "8:12"}},
		{"core kind without health", `
app "a" {
  resource "ep" {
    kind = "Endpoints"
    name = "x"
  }
}
`, []string{"Resource without a health rule", "Endpoints", "8:12"}},
		{"bad kind", `
app "a" {
  resource "q" {
    kind = "v1/storage.k8s.io/StorageClass"
    name = "jobs"
  }
}
`, []string{"Invalid resource kind", `write "GROUP/Kind"`, "8:12"}},
		{"missing name", `
app "a" {
  resource "q" {
    kind = "ConfigMap"
  }
}
`, []string{"Missing required argument", `"name" is required`, "7:3"}},
		{"bad name", `
app "a" {
  resource "q" {
    kind = "ConfigMap"
    name = "Not_A_Name"
  }
}
`, []string{"Invalid resource name", "Not_A_Name", "9:12"}},
		{"duplicate", `
app "a" {
  resource "q" {
    kind = "ConfigMap"
    name = "x"
  }
  resource "q" {
    kind = "ConfigMap"
    name = "y"
  }
}
`, []string{"Duplicate resource", `app "a" already declares a resource "q" at platform.hcl:7:12`, "11:12"}},
		{"task name taken", `
app "a" {
  resource "q" {
    kind = "ConfigMap"
    name = "x"
  }
}
app "wait-a-q" {}
`, []string{"App name taken by a resource wait", `the task "wait-a-q"`, "12:5"}},
		{"malformed", `
app "a" {}
app "c" { depends_on = [app.a.resources.sc] }
`, []string{"Invalid reference in depends_on", "app.NAME.resource.R", "7:25"}},
		{"resource without name", `
app "a" {}
app "c" { depends_on = [app.a.resource] }
`, []string{"Invalid reference in depends_on", "app.a.resource.NAME", "7:25"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, diags := parseLoose(tc.src)
			if !diags.HasErrors() {
				_, diags = Compile(m, Options{})
			}
			if !diags.HasErrors() {
				t.Fatal("no error")
			}
			for _, d := range diags {
				if d.Summary != tc.want[0] {
					continue
				}
				for _, w := range tc.want[1 : len(tc.want)-1] {
					if !strings.Contains(d.Detail, w) {
						t.Errorf("detail lacks %q:\n%s", w, d.Detail)
					}
				}
				if at := fmt.Sprintf("%d:%d", d.Subject.Start.Line, d.Subject.Start.Column); at != tc.want[len(tc.want)-1] {
					t.Errorf("subject at %s, want %s", at, tc.want[len(tc.want)-1])
				}
				return
			}
			t.Errorf("no %q diagnostic in:\n%s", tc.want[0], diags.Error())
		})
	}
}

// parseLoose parses without failing the test, for diagnostics lang
// reports.
func parseLoose(src string) (*lang.Module, hcl.Diagnostics) {
	return lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(header + src)}})
}
