package hostile

import (
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/importer"
)

// TestImportTemplateBounds: template engines that run forever or until
// memory is exhausted are stopped at their bounds, each a diagnostic.
func TestImportTemplateBounds(t *testing.T) {
	appSet := func(tmpl string) string {
		return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: bomb
  namespace: argocd
spec:
  goTemplate: true
  generators:
  - list:
      elements:
      - name: a
  template:
    metadata:
      name: '` + tmpl + `'
    spec:
      project: default
      source: {repoURL: https://charts.example.com, chart: web, targetRevision: 1.0.0}
      destination: {server: https://kubernetes.default.svc, namespace: web}
`
	}
	chartApp := strings.Replace(strings.Replace(leafApp("web", ""), "    chart: web\n", "    path: chart\n", 1), "https://charts.example.com", "https://git.example.com/r.git", 1)
	for _, c := range []struct {
		name    string
		files   map[string]string
		summary string
		why     string
	}{
		{"ApplicationSet until 400000000", map[string]string{"set.yaml": appSet(`{{ range until 400000000 }}{{ end }}x`), "web.yaml": leafApp("web", "")},
			"ApplicationSet template does not render", "memory"},
		{"ApplicationSet output bomb", map[string]string{"set.yaml": appSet(`{{ range until 100000 }}{{ range until 100000 }}x{{ end }}{{ end }}`), "web.yaml": leafApp("web", "")},
			"ApplicationSet template does not render", "MiB"},
		{"ApplicationSet template calling itself", map[string]string{"set.yaml": appSet(`{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}`), "web.yaml": leafApp("web", "")},
			"ApplicationSet template does not render", "depth"},
		{"Helm tpl calling itself", map[string]string{"root.yaml": chartApp,
			"chart/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
			"chart/values.yaml":       "x: '{{ tpl .Values.x . }}'\n",
			"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  x: {{ tpl .Values.x . | quote }}\n"},
			"Chart does not render", "stack"},
		{"Helm until 400000000", map[string]string{"root.yaml": chartApp,
			"chart/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 1.0.0\n",
			"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n{{- range until 400000000 }}{{ end }}\n"},
			"Chart does not render", "memory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeDir(t, c.files)
			start := time.Now()
			_, diags, err := importer.Import([]string{dir}, importer.Options{OutDir: t.TempDir()})
			if err != nil {
				t.Fatalf("internal error: %v", err)
			}
			found := false
			for _, d := range diags {
				if d.Summary == c.summary && strings.Contains(d.Detail, c.why) {
					found = true
					t.Logf("after %s: %s", time.Since(start).Round(time.Millisecond), d.Detail)
				}
			}
			if !found {
				t.Errorf("diagnostics %v, want %q saying %q", diags, c.summary, c.why)
			}
			if took := time.Since(start); took > 60*time.Second {
				t.Errorf("took %s", took)
			}
		})
	}
}
