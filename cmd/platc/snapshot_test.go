package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/exitcode"
)

// TestSnapshotDiff: platc snapshot diff lists what changed, as text and
// JSON; a file that is not a snapshot is exit 3 naming it; text from a
// snapshot cannot drive the terminal.
func TestSnapshotDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, s *snapshot.Snapshot) string {
		var b bytes.Buffer
		must(t, s.Encode(&b))
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, b.Bytes(), 0o644))
		return p
	}
	snap := func() *snapshot.Snapshot {
		return &snapshot.Snapshot{Format: snapshot.Format, TakenAt: time.Date(2026, 1, 7, 10, 30, 0, 0, time.UTC), Server: "https://k8s:6443",
			KubernetesVersion: "v1.34.1", Nodes: []snapshot.Node{{Name: "n1", Ready: true}}, Namespaces: []string{"argocd"}}
	}
	old := write("old.json", snap())
	s := snap()
	s.TakenAt = s.TakenAt.Add(time.Hour)
	s.Nodes[0].Ready = false
	s.Namespaces = append(s.Namespaces, "evil\x1b]0;pwned\x07\nforged line")
	cur := write("new.json", s)

	var stdout, stderr bytes.Buffer
	if code := run([]string{"platc", "snapshot", "diff", old, cur}, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := old + " (https://k8s:6443, taken 2026-01-07T10:30:00Z) → " + cur + " (https://k8s:6443, taken 2026-01-07T11:30:00Z): 2 changes\n" +
		"  node n1 changed: Ready → not Ready\n" +
		"  namespace evil\\u001b]0;pwned\\u0007 forged line added\n"
	if stdout.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", stdout.String(), want)
	}

	stdout.Reset()
	if code := run([]string{"platc", "snapshot", "diff", "--format", "json", old, old}, &stdout, &stderr); code != exitcode.OK || stdout.String() != "[]\n" {
		t.Errorf("json of no changes: exit %d %q", code, stdout.String())
	}

	bad := filepath.Join(dir, "bad.json")
	must(t, os.WriteFile(bad, []byte(`{"format": "platc.snapshot/v1", "nodes": {}}`), 0o644))
	for _, args := range [][]string{{old}, {old, bad}, {old, filepath.Join(dir, "absent.json")}} {
		stderr.Reset()
		code := run(append([]string{"platc", "snapshot", "diff"}, args...), &stdout, &stderr)
		if code != exitcode.Invalid || !strings.HasPrefix(stderr.String(), "platc: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	contains := stderr.String()
	if !strings.Contains(contains, "absent.json: open") && !strings.Contains(contains, "no such file") {
		t.Errorf("missing file: %s", contains)
	}
}
