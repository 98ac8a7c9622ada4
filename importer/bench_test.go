package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree lays out a platform of stacks × perStack leaf Applications
// the way RFC 1.2.4 describes: a root, one Application per stack with
// sync waves from -30 to +50, and per stack its children. The first
// stack is a Helm target chart; the rest are plain files. Every other
// app has a local path source with a Deployment and a Service, every
// fifth of those a PreSync Job that waits for the Service of an app of
// the stack before, and every tenth a custom resource whose CRD the
// app before it defines.
func writeTree(tb testing.TB, dir string, stacks, perStack int) {
	tb.Helper()
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	const repo = "https://git.example.com/bench/platform.git"
	application := func(name string, wave int, ns, source string) string {
		return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: %s
  namespace: argocd
  annotations:
    argocd.argoproj.io/sync-wave: "%d"
spec:
  project: platform
  source:
%s
  destination:
    server: https://kubernetes.default.svc
    namespace: %s
  syncPolicy:
    syncOptions: [CreateNamespace=true]
`, name, wave, source, ns)
	}
	pathSource := func(p string) string {
		return fmt.Sprintf("    repoURL: %s\n    targetRevision: v1.0.0\n    path: %s", repo, p)
	}
	write("root.yaml", application("platform-root", 0, "argocd", pathSource("stacks")))
	for s := range stacks {
		stack := fmt.Sprintf("s%02d", s)
		wave := -30 + 80*s/max(stacks-1, 1)
		write("stacks/"+stack+".yaml", application(stack+"-stack", wave, "argocd", pathSource("stacks/"+stack)))
		var chartApps strings.Builder
		for i := range perStack {
			name := fmt.Sprintf("%s-a%02d", stack, i)
			src := fmt.Sprintf("    repoURL: https://charts.example.com\n    chart: %s\n    targetRevision: 1.%d.0\n    helm:\n      valuesObject:\n        replicas: %d", name, i, 1+i%3)
			if i%2 == 0 {
				src = pathSource("apps/" + name)
				objs := fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n  ports: [{port: 80}]\n", name, name)
				if i%10 == 2 {
					objs += fmt.Sprintf("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets%d.%s.example.com\nspec:\n  group: %s.example.com\n  scope: Namespaced\n  names: {kind: Widget%d, plural: widgets%d}\n", i, stack, stack, i, i)
				}
				if i%10 == 4 {
					objs += fmt.Sprintf("---\napiVersion: %s.example.com/v1\nkind: Widget%d\nmetadata:\n  name: w\n", stack, i-2)
				}
				if i%10 == 0 && s > 0 {
					dep := fmt.Sprintf("s%02d-a%02d", s-1, i)
					objs += fmt.Sprintf("---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: %s-wait\n  annotations:\n    argocd.argoproj.io/hook: PreSync\nspec:\n  template:\n    spec:\n      containers:\n        - name: wait\n          image: busybox\n          command: [sh, -c, \"until nc -z %s.%s 80; do sleep 2; done\"]\n", name, dep, dep)
				}
				write("apps/"+name+"/manifests.yaml", objs)
			}
			if s == 0 {
				fmt.Fprintf(&chartApps, "  - {name: %s, wave: %d}\n", name, i%7)
				continue
			}
			write("stacks/"+stack+"/"+name+".yaml", application(name, i%7, name, src))
		}
		if s == 0 {
			write("stacks/"+stack+"/Chart.yaml", "apiVersion: v2\nname: "+stack+"\nversion: 1.0.0\n")
			write("stacks/"+stack+"/values.yaml", "apps:\n"+chartApps.String())
			write("stacks/"+stack+"/templates/apps.yaml", `{{- range .Values.apps }}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {{ .name }}
  namespace: argocd
  annotations:
    argocd.argoproj.io/sync-wave: "{{ .wave }}"
spec:
  project: platform
  source:
    repoURL: https://charts.example.com
    chart: {{ .name }}
    targetRevision: 1.0.0
  destination:
    server: https://kubernetes.default.svc
    namespace: {{ .name }}
{{- end }}
`)
		}
	}
}

// BenchmarkImport1000 imports a tree of 1,000 leaf Applications in 20
// stacks (and their 21 app-of-apps), everything included: reading and
// rendering, inference, cycles, HCL, and the compile and lint of the
// result.
func BenchmarkImport1000(b *testing.B) {
	dir := b.TempDir()
	writeTree(b, dir, 20, 50)
	out := b.TempDir()
	b.ReportAllocs()
	var res *Result
	for b.Loop() {
		var err error
		res, _, err = Import([]string{dir}, Options{OutDir: out})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Report.Counts.Apps), "apps")
	b.ReportMetric(float64(res.Report.Counts.Edges), "edges")
}

// The benchmark's tree imports cleanly, with the apps, stacks and
// evidence it was built with, so the figure measures a real import.
func TestBenchmarkTree(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, 20, 50)
	res, diags, err := Import([]string{dir}, Options{OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	c := res.Report.Counts
	if c.Apps != 1000 || c.Stacks != 20 || c.Applications != 1021 {
		t.Errorf("%d apps in %d stacks from %d Applications; want 1000 in 20 from 1021", c.Apps, c.Stacks, c.Applications)
	}
	kinds := map[string]int{}
	for _, e := range res.Report.Edges {
		kinds[e.Kind]++
	}
	// 19 plain stacks × 5 waits and 5 CRD consumers (the chart stack's apps
	// come from a Helm repository), and the waves.
	if kinds["wait"] != 95 || kinds["crd"] != 95 || kinds["wave"] == 0 {
		t.Errorf("edges by kind: %v", kinds)
	}
}
