package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/platc/platc/internal/exitcode"
)

// resourcesDir writes the platform of emit/argo's resources golden (two
// apps that wait for resources of two others) to a directory.
func resourcesDir(t *testing.T) string {
	t.Helper()
	a, err := txtar.ParseFile("../../emit/argo/testdata/golden/resources.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range a.Files {
		if f.Name == "platform.hcl" {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var out, stderr bytes.Buffer
	if code := run(append([]string{"platc"}, args...), &out, &stderr); code != exitcode.OK {
		t.Fatalf("platc %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	return out.String()
}

// platc plan lists each resource wait under the app that waits, with what
// it waits for, in text and in JSON.
func TestPlanShowsResourceWaits(t *testing.T) {
	dir := resourcesDir(t)
	text := runOK(t, "plan", dir)
	for _, want := range []string{
		"Resource waits (3 waits, each a step after its app is Healthy):",
		"postgres    waits for app.ceph-cluster.resource.block-storage  storage.k8s.io/StorageClass ceph-block",
		"must exist, within 7m",
		"reports-db  waits for app.postgres-operator.resource.crd       apiextensions.k8s.io/CustomResourceDefinition postgresqls.acid.zalan.do  must be Healthy, within 5m",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("plan lacks %q:\n%s", want, text)
		}
	}
	var doc struct {
		Apps []struct {
			Name     string `json:"name"`
			WaitsFor []struct {
				Resource, Kind, Name, Wait string
				TimeoutSeconds             float64 `json:"timeout_seconds"`
			} `json:"waits_for"`
		} `json:"app_details"`
	}
	if err := json.Unmarshal([]byte(runOK(t, "plan", "--format", "json", dir)), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range doc.Apps {
		for _, w := range a.WaitsFor {
			got[a.Name] += w.Resource + " " + w.Kind + " " + w.Name + " " + w.Wait + ";"
		}
	}
	if want := "app.ceph-cluster.resource.block-storage storage.k8s.io/StorageClass ceph-block exists;app.postgres-operator.resource.crd apiextensions.k8s.io/CustomResourceDefinition postgresqls.acid.zalan.do healthy;"; got["postgres"] != want {
		t.Errorf("postgres waits_for %q, want %q", got["postgres"], want)
	}
	if len(got) != 2 {
		t.Errorf("apps with waits: %v", got)
	}
}

// platc graph draws each resource node once, between its app and the
// apps that wait for it; Graphviz draws the DOT without a warning.
func TestGraphShowsResourceNodes(t *testing.T) {
	dir := resourcesDir(t)
	dot := runOK(t, "graph", dir)
	for _, want := range []string{
		`"ceph-cluster" -> "wait-ceph-cluster-block-storage" [style=dashed];`,
		`"wait-postgres-operator-crd" -> "postgres" [style=dashed];`,
		`"wait-postgres-operator-crd" -> "reports-db" [style=dashed];`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("dot lacks %q:\n%s", want, dot)
		}
	}
	if n := strings.Count(dot, `"wait-postgres-operator-crd" [shape=note`); n != 1 {
		t.Errorf("the shared wait is drawn %d times", n)
	}
	tool := requireTool(t, "dot", "graphviz")
	cmd := exec.Command(tool, "-Tsvg")
	cmd.Stdin = strings.NewReader(dot)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil || stderr.Len() > 0 {
		t.Errorf("dot: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Resources []struct {
			Resource, Task string
			WaitedBy       []string `json:"waited_by"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(runOK(t, "graph", "--format", "json", dir)), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Resources) != 2 || doc.Resources[1].Task != "wait-postgres-operator-crd" || strings.Join(doc.Resources[1].WaitedBy, ",") != "postgres,reports-db" {
		t.Errorf("graph JSON resources: %+v", doc.Resources)
	}
	mermaid := runOK(t, "graph", "--format", "mermaid", dir)
	if !strings.Contains(mermaid, "r1 -.-> n3") {
		t.Errorf("mermaid lacks the wait edge to reports-db:\n%s", mermaid)
	}
	// By stack, waits are inside the nodes: none are drawn.
	if s := runOK(t, "graph", "--by", "stack", dir); strings.Contains(s, "wait-") {
		t.Errorf("by stack draws waits:\n%s", s)
	}
}
