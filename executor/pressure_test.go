package executor_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/internal/testenv"
)

// TestPhase0NodePressure (RFC 6.1 "nodes have sufficient disk space",
// RFC 3.2.4 "sufficient resources"): the test plays the kubelet, writing
// DiskPressure, MemoryPressure and PIDPressure into the nodes' status on
// the real API server (no kubelet runs here), and Phase 0 reads them
// from the node list it already fetches. Disk pressure on some Ready
// nodes warns, on all of them blocks a deploy (exit 1, nothing
// submitted) but only warns in validate; memory and PID pressure warn.
func TestPhase0NodePressure(t *testing.T) {
	f := newFixture(t, "pressure")
	f.primitives(t)
	kc, _ := f.s.Clients(t)
	nodes, err := kc.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("nodes: %v, %d", err, len(nodes.Items))
	}
	t.Cleanup(func() {
		for _, n := range nodes.Items {
			simulatedKubelet(t, kc, n.Name)
		}
	})

	r := f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "report", r.out, `{"name":"disk-pressure","status":"pass","message":"no Ready node reports DiskPressure"}`,
		`{"name":"resource-pressure","status":"pass"`)

	simulatedKubelet(t, kc, "node-1", corev1.NodeDiskPressure, corev1.NodePIDPressure)
	simulatedKubelet(t, kc, "node-2", corev1.NodeMemoryPressure)
	r = f.run(t, config.Deploy, testenv.AdminToken, func(in *config.Input) { in.DryRun = "true" })
	expect(t, r, exitcode.OK, "dry-run")
	contains(t, "report", r.out,
		`{"name":"disk-pressure","status":"warn","message":"1 node of 4 Ready nodes reports DiskPressure (node-1)`,
		`{"name":"resource-pressure","status":"warn","message":"Ready nodes under pressure: MemoryPressure on 1 node of 4 (node-2) and PIDPressure on 1 node of 4 (node-1)`)

	for _, n := range nodes.Items {
		simulatedKubelet(t, kc, n.Name, corev1.NodeDiskPressure)
	}
	r = f.run(t, config.Deploy, testenv.AdminToken, nil)
	expect(t, r, exitcode.Failure, "failed")
	contains(t, "report", r.out, `{"name":"disk-pressure","status":"fail","message":"every Ready node reports DiskPressure (node-0, node-1, node-2 and node-3)`, "Phase 0 found blocking problems")
	if n := f.countWorkflows(t); n != 0 {
		t.Errorf("Phase 0 blocked the deploy, yet %d workflows were submitted", n)
	}
	// validate reports the platform's health even on a struggling cluster.
	f.healthy(t)
	r = f.run(t, config.Validate, testenv.AdminToken, nil)
	contains(t, "report", r.out, `{"name":"disk-pressure","status":"warn","message":"every Ready node reports DiskPressure`)
	if r.code == exitcode.Failure && r.report["status"] == "failed" {
		t.Errorf("validate failed on disk pressure alone:\n%s", r.out)
	}
}

// simulatedKubelet writes a node's status as its kubelet would: Ready,
// and each given pressure condition True (the others absent).
func simulatedKubelet(t *testing.T, kc kubernetes.Interface, name string, pressure ...corev1.NodeConditionType) {
	t.Helper()
	ctx := context.Background()
	n, err := kc.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds := []corev1.NodeCondition{}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			conds = append(conds, c)
		}
	}
	for _, p := range pressure {
		conds = append(conds, corev1.NodeCondition{Type: p, Status: corev1.ConditionTrue, Reason: "KubeletHas" + string(p)})
	}
	n.Status.Conditions = conds
	if _, err := kc.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
