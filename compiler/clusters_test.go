package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/ir"
)

const clusterEnvs = `
environment "prod" {
  domain = "prod.example.com"
  cluster "edge-eu" {
    server = "https://edge-eu.example.com:6443"
  }
  cluster "edge-us" {}
}
environment "staging" {
  domain = "staging.example.com"
}
`

// An app names its destination cluster the way its Application will:
// by name or by server, resolved against the environment's clusters.
func TestDestinationClusters(t *testing.T) {
	p := compile(t, clusterEnvs+`
app "by-name" {
  namespace = "a"
  cluster   = "edge-eu"
  source { path = "apps/a" }
}
app "by-server" {
  namespace = "b"
  cluster   = "https://edge-eu.example.com:6443"
  source { path = "apps/b" }
}
app "name-only" {
  namespace = "c"
  cluster   = "edge-us"
  source { path = "apps/c" }
}
app "home" {
  namespace = "d"
  source { path = "apps/d" }
}
app "home-by-name" {
  namespace = "e"
  cluster   = "in-cluster"
  source { path = "apps/e" }
}`)
	if got := len(p.Env.Clusters); got != 2 || p.Env.Clusters[0].Name != "edge-eu" || p.Env.Clusters[1].Server != "" {
		t.Fatalf("clusters: %+v", p.Env.Clusters)
	}
	edge := p.Env.Clusters[0]
	for name, want := range map[string]ir.Destination{
		"by-name":      {Name: "edge-eu", Cluster: edge},
		"by-server":    {Server: "https://edge-eu.example.com:6443", Cluster: edge},
		"name-only":    {Name: "edge-us", Cluster: p.Env.Clusters[1]},
		"home":         {Server: ir.InClusterServer},
		"home-by-name": {Name: ir.InClusterName},
	} {
		if got := p.App(name).Destination; got != want {
			t.Errorf("%s: destination %+v, want %+v", name, got, want)
		}
	}
}

// A cluster that is not declared, or declared wrongly, is an error where
// it is written, with the nearest declared one and how to declare it.
func TestDestinationClusterErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
		detail    string
	}{
		{"typo", clusterEnvs + `
app "a" {
  namespace = "a"
  cluster   = "edge-euu"
  source { path = "apps/a" }
}`, []string{"15:15 Unknown cluster"}, `Did you mean "edge-eu"?`},
		{"unknown server", clusterEnvs + `
app "a" {
  namespace = "a"
  cluster   = "https://edge-eu.example.com"
  source { path = "apps/a" }
}`, []string{"15:15 Unknown cluster"}, `Its clusters: https://kubernetes.default.svc, https://edge-eu.example.com:6443.`},
		{"no environments", `
app "a" {
  namespace = "a"
  cluster   = "edge"
  source { path = "apps/a" }
}`, []string{"4:15 Unknown cluster"}, `declare environment "default" { cluster`},
		{"bad declarations", `
environment "prod" {
  cluster "in-cluster" {}
  cluster "edge" { server = "http://edge.example.com" }
  cluster "edge" {}
  cluster "far" { server = "https://kubernetes.default.svc/" }
  cluster "a b" {}
}`, []string{"3:11 Reserved cluster name", "4:29 Invalid cluster server", "5:11 Duplicate cluster", "6:28 Reserved cluster server", "7:11 Invalid cluster name"}, "always knows the cluster it runs in"},
		{"snapshot in another cluster", clusterEnvs + `
app "a" {
  namespace = "a"
  cluster   = "edge-eu"
  source { path = "apps/a" }
  teardown { volumes = "snapshot" }
}`, []string{"15:15 Volume snapshots in another cluster"}, "snapshot its volumes in that cluster yourself"},
		{"adopted app", clusterEnvs + `
app "a" {
  cluster = "edge-eu"
}`, []string{"14:3 Application setting without a source"}, "Add a source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags := compileErrors(t, tc.src)
			offset := strings.Count(header, "\n")
			var got []string
			for _, d := range diags {
				got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line-offset, d.Subject.Start.Column, d.Summary))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("diagnostics:\n%s\nwant:\n%s\n(%s)", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), diags.Error())
			}
			if len(diags) > 0 && !strings.Contains(diags[0].Detail, tc.detail) {
				t.Errorf("detail %q does not say %q", diags[0].Detail, tc.detail)
			}
		})
	}
}

// The staging environment declares no edge-eu: an app that deploys
// there in prod fails in staging, naming where prod declares it.
func TestDestinationClusterPerEnvironment(t *testing.T) {
	m := parse(t, clusterEnvs+`
app "a" {
  namespace = "a"
  cluster   = "edge-eu"
  source { path = "apps/a" }
}`)
	_, diags := Compile(m, Options{Env: "staging"})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `Environment "prod" (platform.hcl:8:11) declares it`) {
		t.Errorf("want the prod declaration named, got %s", diags.Error())
	}
}
