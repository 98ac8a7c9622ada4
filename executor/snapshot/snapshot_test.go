package snapshot

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

func sample() *Snapshot {
	return &Snapshot{Format: Format, TakenAt: time.Date(2026, 1, 7, 10, 30, 0, 0, time.UTC), Action: "validate", Platform: "acme", Environment: "prod",
		Server: "https://k8s:6443", KubernetesVersion: "v1.34.1",
		Nodes:        []Node{{Name: "b", Ready: true, Allocatable: map[string]string{"cpu": "4"}}, {Name: "a", Ready: true, Allocatable: map[string]string{"cpu": "4"}}},
		Namespaces:   []string{"kube-system", "argocd"},
		CRDs:         []CRD{{Name: "widgets.example.org", Group: "example.org", Versions: []string{"v1"}, Owner: OwnerNone}},
		Components:   []Workload{{Component: "argocd-server", Namespace: "argocd", Kind: "Deployment", Name: "argocd-server", Version: "v3.1.8", Replicas: 1, Ready: 1, Status: Ready}},
		Applications: []Application{{Name: "db", App: "db", Sync: "Synced", Health: "Healthy", Revision: "abc"}},
	}
}

// TestDiff: every kind of change, in the fixed order; none between a
// snapshot and itself.
func TestDiff(t *testing.T) {
	old := sample()
	if d := Diff(old, sample()); len(d) != 0 {
		t.Errorf("a snapshot differs from itself: %v", d)
	}
	new := sample()
	new.KubernetesVersion = "v1.35.0"
	new.Nodes[0].Ready = false
	new.Nodes[1].Allocatable["cpu"] = "8"
	new.Nodes = append(new.Nodes, Node{Name: "c", Ready: true})
	new.Namespaces = []string{"kube-system", "shop"}
	new.CRDs[0].Owner, new.CRDs[0].OwnedBy = OwnerApp, "widgets"
	new.CRDs = append(new.CRDs, CRD{Name: "gadgets.example.org", Versions: []string{"v1", "v2"}, Owner: OwnerNone})
	new.Components[0].Ready, new.Components[0].Status, new.Components[0].Version = 0, NotReady, "v3.2.0"
	new.Applications[0].Revision, new.Applications[0].Health = "def", "Degraded"
	new.Sort()
	var lines []string
	for _, c := range Diff(old, new) {
		lines = append(lines, c.Text())
	}
	want := `kubernetes version changed: v1.34.1 → v1.35.0
node a changed: allocatable cpu 4 → 8
node b changed: Ready → not Ready
node c added: Ready
namespace argocd removed
namespace shop added
crd gadgets.example.org added: versions v1, v2, owner none
crd widgets.example.org changed: owner none → owner app widgets
component argocd/argocd-server changed: ready 1/1 version v3.1.8 → not-ready 0/1 version v3.2.0
application db changed: revision abc → def; health Healthy → Degraded`
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
}

// TestDecode: what a baseline may not be, each with a message that says
// where or what.
func TestDecode(t *testing.T) {
	var b bytes.Buffer
	s := sample()
	s.Sort()
	if err := s.Encode(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(b.Bytes())
	if err != nil || back.Nodes[0].Name != "a" {
		t.Fatalf("round trip: %v %+v", err, back)
	}
	for src, want := range map[string]string{
		"": "empty: not a platc snapshot",
		"{\n  \"format\": \"platc.snapshot/v1\",\n  \"nodes\": [1]\n}": "line 3, column 13: json: cannot unmarshal number",
		`{"format": "platc.snapshot/v1", "secret": 1}`:                 `unknown field "secret"`,
		`{"nodes": []}`:                      `no "format": not a platc snapshot`,
		`{"format": "platc.snapshot/v9"}`:    `format "platc.snapshot/v9" is not "platc.snapshot/v1"`,
		`{"format": "platc.snapshot/v1"} {}`: "more than one JSON value",
		`{"format": "platc.snapshot/v1"`:     "unexpected EOF",
	} {
		_, err := Decode([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", src, err, want)
		}
	}
}

// TestFitBound: at the caps, with names, taint keys and values of the
// longest lengths Kubernetes allows, the snapshot is cut to MaxFileSize,
// says so, and reads back as a baseline.
func TestFitBound(t *testing.T) {
	long := func(n int, c byte) string { return strings.Repeat(string(c), n) }
	s := sample()
	s.Nodes, s.Namespaces, s.CRDs, s.Applications = nil, nil, nil, nil
	for i := range MaxNodes {
		n := Node{Name: fmt.Sprintf("%s%05d", long(248, 'n'), i), Ready: true, Allocatable: map[string]string{"cpu": "64", "memory": "512Gi", "pods": "110", "ephemeral-storage": "1Ti"}}
		for j := range MaxTaints {
			n.Taints = append(n.Taints, Taint{Key: fmt.Sprintf("%s/%s%02d", long(253, 'k'), long(61, 'k'), j), Value: long(63, 'v'), Effect: "NoSchedule"})
		}
		s.Nodes = append(s.Nodes, n)
	}
	for i := range MaxNamespaces {
		s.Namespaces = append(s.Namespaces, fmt.Sprintf("%s%05d", long(58, 's'), i))
	}
	for i := range MaxCRDs {
		s.CRDs = append(s.CRDs, CRD{Name: fmt.Sprintf("%s%05d", long(248, 'c'), i), Group: long(253, 'g'), Versions: []string{long(63, 'v')}, Owner: OwnerApp, OwnedBy: long(253, 'a')})
	}
	for i := range MaxApplications {
		s.Applications = append(s.Applications, Application{Name: fmt.Sprintf("%s%05d", long(248, 'a'), i), App: long(253, 'a'), Sync: "Synced", Health: "Healthy", Revision: long(40, 'f')})
	}
	b, err := s.Fit()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes; truncated: %v", len(b), s.Truncated)
	if len(b) > MaxFileSize || len(s.Truncated) == 0 || len(s.Nodes) == MaxNodes {
		t.Errorf("%d bytes (at most %d), truncated %v, %d nodes", len(b), MaxFileSize, s.Truncated, len(s.Nodes))
	}
	if _, err := Decode(b); err != nil {
		t.Errorf("a fitted snapshot does not read back: %v", err)
	}
	// A snapshot of a normal cluster is left whole.
	small := sample()
	if _, err := small.Fit(); err != nil || len(small.Truncated) != 0 {
		t.Errorf("a small snapshot was cut: %v %v", err, small.Truncated)
	}
}
