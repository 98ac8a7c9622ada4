package hostile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestImportLineMappingLinear: evidence from a chart is mapped to its
// template line by matching rendered lines against template lines.
// Trying every template line for every rendered line took 82 s on a
// 528 KB repository. This one is a chart of 20,000 template lines with
// actions and an include that writes 20,000 lines none of them matches,
// 1.1 MB: the quadratic mapping took 32 s at 12,000 lines and minutes at
// 20,000; the linear one a second or two.
func TestImportLineMappingLinear(t *testing.T) {
	const n = 20_000
	var tmpl, helper strings.Builder
	tmpl.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n{{- include \"big\" . | nindent 2 }}\n")
	helper.WriteString("{{- define \"big\" }}\n")
	for i := range n {
		fmt.Fprintf(&tmpl, "  key%d: {{ .Values.v }}-%d\n", i, i)
		fmt.Fprintf(&helper, "other%d: text\n", i)
	}
	helper.WriteString("{{- end }}\n")
	// A Job that waits, after all of it: its evidence is located in
	// the template, which maps every line of the output.
	tmpl.WriteString("---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: wait\n  annotations:\n    helm.sh/hook: pre-install\nspec:\n  template:\n    spec:\n      containers:\n      - name: w\n        image: bitnami/kubectl\n        command: [kubectl, wait, --for=condition=Available, deployment/db, -n, db]\n")
	dir := writeDir(t, map[string]string{
		"root.yaml":                         strings.Replace(strings.Replace(leafApp("web", ""), "    chart: web\n", "    path: chart\n", 1), "https://charts.example.com", "https://git.example.com/r.git", 1),
		"chart/Chart.yaml":                  "apiVersion: v2\nname: big\nversion: 1.0.0\n",
		"chart/values.yaml":                 "v: x\n",
		"chart/templates/cm.yaml":           tmpl.String(),
		"chart/templates/_helpers.tpl":      helper.String(),
		"chart/templates/unrelated.yaml":    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n",
		"chart/templates/NOTES.txt":         "hello\n",
		"chart/templates/_more-helpers.tpl": "{{- define \"x\" }}x{{ end }}\n",
	})
	start := time.Now()
	res, diags, _ := importCompiled(t, dir)
	took := time.Since(start)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// The wait was found, and located past the 24,000 lines before it.
	if len(res.Report.Hooks) != 1 || !strings.Contains(res.Report.Hooks[0].At, "cm.yaml:") {
		t.Fatalf("hooks %+v, want the Job's wait in cm.yaml", res.Report.Hooks)
	}
	// The bound leaves room for a loaded machine and still fails the
	// quadratic mapping.
	if took > 20*time.Second {
		t.Errorf("the import took %s", took)
	}
}

// TestImportManyAdopted: each adopted Application is copied as written,
// and finding its document split the whole file again: 4,000 adopted
// Applications in one 1.1 MB file took 13 s to import, 6,000 23 s. Now
// each copy reads only its own lines (6,000: 1.2 s).
func TestImportManyAdopted(t *testing.T) {
	const n = 8000
	var b strings.Builder
	for i := range n {
		// A cluster server over plain HTTP, which platc refuses (Argo
		// CD would send the cluster's credentials in clear): adopted,
		// and kept verbatim.
		fmt.Fprintf(&b, "---\n# app %d\n%s", i, strings.Replace(leafApp(fmt.Sprintf("a%d", i), ""), "https://kubernetes.default.svc", "http://other.example.com", 1))
	}
	dir := writeDir(t, map[string]string{"apps.yaml": b.String()})
	start := time.Now()
	res, diags, _ := importCompiled(t, dir)
	took := time.Since(start)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(res.Adopted) != n {
		t.Fatalf("adopted %d, want %d", len(res.Adopted), n)
	}
	// The copy is the document as written, its comment included.
	if got := string(res.Adopted[n-1].Data); !strings.Contains(got, fmt.Sprintf("# app %d\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a%d\n", n-1, n-1)) || strings.Contains(got, "---") {
		t.Errorf("adopted copy:\n%s", got)
	}
	if took > 15*time.Second {
		t.Errorf("the import took %s", took)
	}
}
