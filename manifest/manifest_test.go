package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/diag"
)

// write lays out files under a temporary directory and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadWalksFollowsKustomizeAndSkips(t *testing.T) {
	root := write(t, map[string]string{
		"scan/a.yaml":                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Secret\n    metadata: {name: s}\n",
		"scan/values.yaml":              "replicas: 2\n",
		"scan/k/kustomization.yaml":     "resources:\n  - ../../outside/b.yml\n  - ../../outside/dir\n  - https://example.com/remote.yaml\npatches:\n  - path: ../../outside/patch.yaml\n  - patch: |-\n      inline\n",
		"outside/b.yml":                 "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: b\n  namespace: ns\n",
		"outside/dir/kustomization.yml": "resources: [c.yaml]\n",
		"outside/dir/c.yaml":            "apiVersion: v1\nkind: Service\nmetadata: {name: c}\n",
		"outside/patch.yaml":            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: b\n  annotations: {x: y}\n",
		"scan/.cache/hook.yaml":         "apiVersion: v1\nkind: Pod\nmetadata: {name: hidden}\n",
		"scan/chart/Chart.yaml":         "apiVersion: v2\nname: chart\n",
		"scan/chart/templates/t.yaml":   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n",
		// The repository that holds scan/ and outside/.
		".git/HEAD": "ref: refs/heads/main\n",
	})
	set, diags := Load(filepath.Join(root, "scan"))
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	var got []string
	for _, o := range set.Objects {
		rel, _ := filepath.Rel(root, o.File.Path)
		via := ""
		if o.Via != "" {
			via = " via " + filepath.Base(filepath.Dir(o.Via))
		}
		got = append(got, filepath.ToSlash(rel)+" "+o.Kind+"/"+o.Name+via)
	}
	want := []string{
		"outside/b.yml Job/b via k",
		"outside/dir/c.yaml Service/c via dir",
		"outside/patch.yaml Job/b via k",
		"scan/a.yaml ConfigMap/a",
		"scan/a.yaml Secret/s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
}

func TestLoadReportsBadInput(t *testing.T) {
	root := write(t, map[string]string{
		"scan/bad.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n",
		"scan/tab.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n",
		"scan/k/kustomization.yaml": "resources:\n  - missing.yaml\n  - nokust\n",
		"scan/k/nokust/x.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
		"scan/binary.yaml":          "\xff\xfe",
	})
	_, diags := Load(filepath.Join(root, "scan"))
	var got []string
	for _, d := range diags {
		rel, _ := filepath.Rel(root, d.Subject.Filename)
		got = append(got, filepath.ToSlash(rel)+":"+strings.TrimPrefix(diag.At(*d.Subject), d.Subject.Filename+":")+" "+d.Summary)
	}
	want := []string{
		"scan/bad.yaml:4:3 Unreadable manifest", // the flow sequence that does not close
		"scan/binary.yaml:1:1 Unreadable manifest",
		"scan/k/kustomization.yaml:2:5 Kustomization entry not found",
		"scan/k/kustomization.yaml:3:5 Kustomization entry without a kustomization",
		"scan/tab.yaml:4:2 Unreadable manifest", // a scanner error, which yaml.v3 numbers from 1
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, d := range diags {
		if d.Severity != 2 {
			t.Errorf("%s is not a warning", d.Summary)
		}
	}
	if _, diags := Load(filepath.Join(root, "nope")); !diags.HasErrors() {
		t.Error("a missing scan directory is not an error")
	}
}

func TestRanges(t *testing.T) {
	src := "metadata:\n  annotations:\n    \"helm.sh/hook\": 'pre-install'  # c\n    plain: véry value\n  script: |\n    line one\n\n    line three\n"
	f := NewFile("m.yaml", []byte(src))
	docs, d := f.Documents()
	if d != nil {
		t.Fatal(d)
	}
	ann := Lookup(docs[0], "metadata", "annotations")
	k, v := Entry(ann, "helm.sh/hook")
	r := f.Span(k, v)
	if got := fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Column, r.End.Line, r.End.Column); got != "3:5-3:34" {
		t.Errorf("span of quoted pair = %s", got)
	}
	if got := string(f.Bytes[r.Start.Byte:r.End.Byte]); got != `"helm.sh/hook": 'pre-install'` {
		t.Errorf("span bytes = %q", got)
	}
	_, pv := Entry(ann, "plain")
	if got := string(f.Bytes[f.Range(pv).Start.Byte:f.Range(pv).End.Byte]); got != "véry value" {
		t.Errorf("plain value bytes = %q", got)
	}
	script := Lookup(docs[0], "metadata", "script")
	for i, want := range map[int]int{0: 6, 1: 7, 2: 8} {
		if got, exact := f.ContentLine(script, i); got != want || !exact {
			t.Errorf("ContentLine(%d) = %d, %v; want %d", i, got, exact, want)
		}
	}
}

// A kustomization's namespace reaches the objects it lists, through
// nested kustomizations, with the outermost one winning as in kustomize.
func TestKustomizeNamespace(t *testing.T) {
	root := write(t, map[string]string{
		"app/kustomization.yaml":      "namespace: outer\nresources: [base, cm.yaml]\n",
		"app/cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: own}\n",
		"app/base/kustomization.yaml": "namespace: inner\nresources: [svc.yaml]\n",
		"app/base/svc.yaml":           "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n",
		"plain/kustomization.yaml":    "resources: [job.yaml]\n",
		"plain/job.yaml":              "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n",
	})
	l := NewLoader()
	l.Kustomization(filepath.Join(root, "app", "kustomization.yaml"), nil)
	l.Kustomization(filepath.Join(root, "plain", "kustomization.yaml"), nil)
	set, diags := l.Set()
	if len(diags) != 0 {
		t.Fatal(diags)
	}
	var got []string
	for _, o := range set.Objects {
		got = append(got, o.Kind+"/"+o.Name+" "+o.Namespace+" "+o.KustomizeNamespace)
	}
	want := []string{"Service/s  outer", "ConfigMap/a own outer", "Job/j  "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLoadStaysInRepository: a kustomization entry naming a file outside
// the repository that holds the scanned directory is reported and not
// read (/proc/self/environ would be quoted in a "not valid YAML"
// warning), and neither is a device.
func TestLoadStaysInRepository(t *testing.T) {
	outside := write(t, map[string]string{"secret.yaml": "password: hunter2\n"})
	root := t.TempDir()
	k := filepath.Join(root, "scan", "k")
	rel, err := filepath.Rel(k, filepath.Join(outside, "secret.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	up := strings.Repeat("../", strings.Count(k, string(filepath.Separator)))
	for name, data := range map[string]string{
		".git/HEAD":                 "ref: refs/heads/main\n",
		"scan/k/kustomization.yaml": "resources:\n  - " + up + "proc/self/environ\n  - " + filepath.ToSlash(rel) + "\n  - zero.yaml\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(root, "scan", "k", "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	set, diags := Load(filepath.Join(root, "scan"))
	if len(set.Files) != 0 {
		t.Errorf("read %d manifests, want none", len(set.Files))
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.Summary)
		if strings.Contains(d.Detail, "hunter2") || strings.Contains(d.Detail, "PATH=") {
			t.Errorf("a diagnostic quotes a file outside the repository: %s", d.Detail)
		}
	}
	want := []string{"Kustomization entry outside the repository", "Kustomization entry outside the repository", "Kustomization entry outside the repository"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
