package executor

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/packer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// statusWorkflow is a Workflow as the controller leaves it: nodes in
// status, as the dynamic client returns it.
func statusWorkflow(t *testing.T, nodes wfv1.Nodes) *wfv1.Workflow {
	t.Helper()
	wf := &wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Name: "deploy-abc", Namespace: "argo"}}
	wf.Status.Phase = wfv1.WorkflowRunning
	wf.Status.Nodes = nodes
	return wf
}

func wfUnstructured(t *testing.T, wf *wfv1.Workflow) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(wf)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func sampleNodes(n int) wfv1.Nodes {
	start := metav1.NewTime(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC).Local()) // metav1.Time decodes to Local
	nodes := wfv1.Nodes{}
	for i := range n {
		id := "deploy-abc-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('0'+i%10))
		nodes[id] = wfv1.NodeStatus{
			ID: id, Name: "deploy-abc.app-" + id, DisplayName: "app-" + id,
			Type: wfv1.NodeTypePod, TemplateName: "deploy-app",
			Phase: wfv1.NodeSucceeded, Message: "ok " + id,
			StartedAt: start, FinishedAt: metav1.NewTime(start.Add(time.Duration(i) * time.Second)),
			Outputs: &wfv1.Outputs{Parameters: []wfv1.Parameter{{Name: "revision", Value: wfv1.AnyStringPtr("r" + id)}}},
		}
	}
	return nodes
}

// TestDecodeCompressedNodes: nodes compressed by Argo's own packer, as
// the workflow controller does for a large workflow, decode to the
// nodes it compressed.
func TestDecodeCompressedNodes(t *testing.T) {
	want := sampleNodes(200)
	wf := statusWorkflow(t, want.DeepCopy())
	// A small limit makes packer compress, as the controller does
	// past MAX_WORKFLOW_SIZE.
	t.Setenv("MAX_WORKFLOW_SIZE", "20000")
	if err := packer.CompressWorkflowIfNeeded(wf); err != nil {
		t.Fatal(err)
	}
	if wf.Status.CompressedNodes == "" || len(wf.Status.Nodes) != 0 {
		t.Fatalf("packer did not compress: %d nodes left, %d bytes compressed", len(wf.Status.Nodes), len(wf.Status.CompressedNodes))
	}
	got, err := fromUnstructured(wfUnstructured(t, wf))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Status.Nodes, want) {
		for id, w := range want {
			if g := got.Status.Nodes[id]; !reflect.DeepEqual(g, w) {
				t.Fatalf("node %s decoded as\n%#v\nwant\n%#v", id, g, w)
			}
		}
		t.Fatalf("decoded node set differs from the one packer compressed")
	}
	if got.Status.CompressedNodes != "" {
		t.Error("compressedNodes left beside the decoded nodes")
	}
	// packer's own decoder agrees, so the format is Argo's.
	ref := wf.DeepCopy()
	if err := packer.DecompressWorkflow(ref); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ref.Status.Nodes, got.Status.Nodes) {
		t.Fatal("packer.DecompressWorkflow and fromUnstructured disagree")
	}
}

// TestDecodeCompressedNodesBad: a corrupt or oversized compressedNodes
// is an error naming the workflow, never a panic or an empty run.
func TestDecodeCompressedNodesBad(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	chunk := make([]byte, 1<<20)
	for range maxNodesJSON>>20 + 1 {
		zw.Write(chunk)
	}
	zw.Close()
	for name, tc := range map[string]struct{ compressed, want string }{
		"not base64": {"%%%", "illegal base64"},
		"not gzip":   {base64.StdEncoding.EncodeToString([]byte("{}")), "EOF"},
		"bomb":       {base64.StdEncoding.EncodeToString(bomb.Bytes()), "larger than 64 MiB"},
	} {
		t.Run(name, func(t *testing.T) {
			wf := statusWorkflow(t, nil)
			wf.Status.CompressedNodes = tc.compressed
			_, err := fromUnstructured(wfUnstructured(t, wf))
			if err == nil || !strings.Contains(err.Error(), "workflow deploy-abc: compressed node status") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one about the compressed node status mentioning %q", err, tc.want)
			}
		})
	}
}

// TestDecodeOffloadedNodes: offloaded node status is refused with the
// fix, not read as a workflow in which nothing ran.
func TestDecodeOffloadedNodes(t *testing.T) {
	wf := statusWorkflow(t, nil)
	wf.Status.OffloadNodeStatusVersion = "fnv:123"
	_, err := fromUnstructured(wfUnstructured(t, wf))
	if err == nil || !strings.Contains(err.Error(), "nodeStatusOffLoad") {
		t.Fatalf("err = %v, want the offload refusal", err)
	}
	wf.Status.Nodes = sampleNodes(1)
	if _, err := fromUnstructured(wfUnstructured(t, wf)); err != nil {
		t.Fatalf("nodes present beside an offload version: %v", err)
	}
}
