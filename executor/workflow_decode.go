package executor

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Decoding: the Workflow as the dynamic client carries it, the
// compressed node status, and what the nodes say about each app.

// toUnstructured turns wf into the object the dynamic client sends.
func toUnstructured(wf *wfv1.Workflow) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(wf)
	if err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	u := &unstructured.Unstructured{Object: m}
	// A typed Workflow always carries an empty status; the API server
	// would drop it, but a dry run prints it, so leave it out.
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

func fromUnstructured(u *unstructured.Unstructured) (*wfv1.Workflow, error) {
	var wf wfv1.Workflow
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &wf); err != nil {
		return nil, fmt.Errorf("decode workflow %s: %w", u.GetName(), err)
	}
	if len(wf.Status.Nodes) == 0 && wf.Status.CompressedNodes != "" {
		nodes, err := decompressNodes(wf.Status.CompressedNodes)
		if err != nil {
			return nil, fmt.Errorf("workflow %s: compressed node status: %w", wf.Name, err)
		}
		wf.Status.Nodes = nodes
		wf.Status.CompressedNodes = ""
	}
	// Offloaded nodes live in the Argo server's database, which platc
	// does not read; without this the workflow would look as if no
	// task had run.
	if len(wf.Status.Nodes) == 0 && wf.Status.IsOffloadNodeStatus() {
		return nil, fmt.Errorf("workflow %s: node status is offloaded to the Argo server's database (offloadNodeStatusVersion %s), which platc does not read; turn off nodeStatusOffLoad in the workflow controller's persistence config", wf.Name, wf.Status.OffloadNodeStatusVersion)
	}
	return &wf, nil
}

// maxNodesJSON bounds the decompressed node map. The controller never
// stores more than MAX_WORKFLOW_SIZE (1 MiB by default) of workflow,
// so 64 MiB is generous, and it stops a gzip bomb in a status field
// anyone with update on workflows can write.
const maxNodesJSON = 64 << 20

// decompressNodes reads status.compressedNodes, which the workflow
// controller writes instead of status.nodes for large workflows
// (packer.CompressWorkflowIfNeeded: base64 of gzip of the JSON node
// map). It is not packer.DecompressWorkflow because that reads the
// gzip stream without a bound.
func decompressNodes(s string) (wfv1.Nodes, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxNodesJSON+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxNodesJSON {
		return nil, fmt.Errorf("decompressed node status is larger than %d MiB", maxNodesJSON>>20)
	}
	var nodes wfv1.Nodes
	return nodes, json.Unmarshal(b, &nodes)
}

// nodeState is one app's task in a followed workflow.
type nodeState struct {
	App        string
	Phase      wfv1.NodePhase
	Message    string
	StartedAt  time.Time
	FinishedAt time.Time
	Node       string // node name, for the failure report
	// Outputs are the node's output parameters.
	Outputs map[string]string
}

func outputsOf(n wfv1.NodeStatus) map[string]string {
	if n.Outputs == nil || len(n.Outputs.Parameters) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, p := range n.Outputs.Parameters {
		if p.Value != nil {
			out[p.Name] = p.Value.String()
		}
	}
	return out
}

// appNodes picks, for every app task of the workflow, its node: the node
// whose display name is the task name (the app name). A task with a
// retry strategy has a Retry node of that name whose children are the
// attempts ("app(0)", "app(1)"); its message is taken from the last
// attempt, which says why it failed.
func appNodes(wf *wfv1.Workflow, apps map[string]bool) map[string]nodeState {
	out := map[string]nodeState{}
	for _, n := range wf.Status.Nodes {
		if !apps[n.DisplayName] || n.Type == wfv1.NodeTypeDAG || n.Type == wfv1.NodeTypeSteps {
			continue
		}
		st := nodeState{App: n.DisplayName, Phase: n.Phase, Message: n.Message, StartedAt: n.StartedAt.Time, FinishedAt: n.FinishedAt.Time, Node: n.Name}
		if n.Type == wfv1.NodeTypeRetry && len(n.Children) > 0 {
			last := wf.Status.Nodes[n.Children[len(n.Children)-1]]
			if last.Message != "" && (n.Phase == wfv1.NodeFailed || n.Phase == wfv1.NodeError) {
				st.Message = strings.TrimSpace(last.Message + attempts(n.Message, len(n.Children)))
				st.Node = last.Name
			}
		}
		if prev, ok := out[n.DisplayName]; ok && prev.StartedAt.After(st.StartedAt) {
			continue
		}
		out[n.DisplayName] = st
	}
	return out
}

func attempts(retryMsg string, n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (after %d attempts)", n)
}

// deadlineMessages are the node messages the workflow controller writes
// when the workflow's activeDeadlineSeconds runs out (argo-workflows
// v3.7 workflow/controller/operator.go and exec_control.go), as opposed to
// one step's own timeout, which is that step's failure.
var deadlineMessages = regexp.MustCompile(`Step exceeded its deadline|retry exceeded workflow deadline`)

// timedOut reports whether a finished workflow failed because its own
// deadline ran out.
func timedOut(wf *wfv1.Workflow) bool {
	if deadlineMessages.MatchString(wf.Status.Message) {
		return true
	}
	for _, n := range wf.Status.Nodes {
		if (n.Phase == wfv1.NodeFailed || n.Phase == wfv1.NodeError) && deadlineMessages.MatchString(n.Message) {
			return true
		}
	}
	if d := wf.Spec.ActiveDeadlineSeconds; d != nil && !wf.Status.StartedAt.IsZero() && !wf.Status.FinishedAt.IsZero() {
		return wf.Status.FinishedAt.Sub(wf.Status.StartedAt.Time) >= time.Duration(*d)*time.Second
	}
	return false
}

// otherFailures are the failed steps of a workflow that are not an app's
// task: a scoped workflow's check that an outside dependency is Healthy,
// teardown's confirmation or orphan report. Attempts of a retried task are
// left out; their task reports them.
func otherFailures(wf *wfv1.Workflow, apps map[string]bool) []nodeState {
	attempt := map[string]bool{}
	for _, n := range wf.Status.Nodes {
		if n.Type == wfv1.NodeTypeRetry {
			for _, c := range n.Children {
				attempt[c] = true
			}
		}
	}
	var out []nodeState
	for id, n := range wf.Status.Nodes {
		if apps[n.DisplayName] || attempt[id] || n.Type == wfv1.NodeTypeDAG || n.Type == wfv1.NodeTypeSteps || n.Type == wfv1.NodeTypeStepGroup ||
			(n.Phase != wfv1.NodeFailed && n.Phase != wfv1.NodeError) {
			continue
		}
		out = append(out, nodeState{App: n.DisplayName, Phase: n.Phase, Message: n.Message, StartedAt: n.StartedAt.Time, FinishedAt: n.FinishedAt.Time, Node: n.Name, Outputs: outputsOf(n)})
	}
	slices.SortFunc(out, func(a, b nodeState) int { return strings.Compare(a.Node, b.Node) })
	return out
}
