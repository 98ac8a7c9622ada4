package preflight

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/platc/platc/internal/english"
)

// maxNamed is how many nodes a pressure line names before counting the
// rest: a thousand-node cluster under pressure still gets one line.
const maxNamed = 5

// checkPressure reads the pressure conditions the kubelets report on the
// Ready nodes (NotReady ones are reported already, and their conditions
// are stale). RFC 6.1 makes "nodes have sufficient disk space" a
// pre-condition: every Ready node under DiskPressure fails (the kubelet
// evicts pods and admits no new ones, so nothing could be deployed),
// some of them warns. Memory and PID pressure are RFC 3.2.4's
// "sufficient resources", warning only. It reads the node list Phase 0
// already fetched: no further call, nothing written.
func checkPressure(nodes []corev1.Node, r *ClusterReport) {
	var ready []*corev1.Node
	for i := range nodes {
		if nodeReady(&nodes[i]) {
			ready = append(ready, &nodes[i])
		}
	}
	if len(ready) == 0 {
		return // nodes-ready already failed
	}
	under := func(t corev1.NodeConditionType) []string {
		var names []string
		for _, n := range ready {
			for _, c := range n.Status.Conditions {
				if c.Type == t && c.Status == corev1.ConditionTrue {
					names = append(names, n.Name)
				}
			}
		}
		slices.Sort(names)
		return names
	}
	disk := under(corev1.NodeDiskPressure)
	switch {
	case len(disk) == len(ready):
		r.add("disk-pressure", Fail, "every Ready node reports DiskPressure (%s): the kubelets evict pods and admit no new ones, so nothing can be deployed. Free disk space on the nodes (unused images, logs, emptyDir volumes) or add nodes; RFC 6.1 requires nodes with sufficient disk space", named(disk))
	case len(disk) > 0:
		r.add("disk-pressure", Warn, "%s of %d Ready nodes %s DiskPressure (%s): pods are not scheduled there and may be evicted; free disk space on them", english.Count(len(disk), "node"), len(ready), english.Agree(len(disk), "reports", "report"), named(disk))
	default:
		r.add("disk-pressure", Pass, "no Ready node reports DiskPressure")
	}
	var lines []string
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodePIDPressure} {
		if names := under(t); len(names) > 0 {
			lines = append(lines, fmt.Sprintf("%s on %s of %d (%s)", t, english.Count(len(names), "node"), len(ready), named(names)))
		}
	}
	if len(lines) > 0 {
		r.add("resource-pressure", Warn, "Ready nodes under pressure: %s; pods may be evicted or not scheduled there (RFC 3.2.4: sufficient resources, a warning)", english.List(lines))
	} else {
		r.add("resource-pressure", Pass, "no Ready node reports MemoryPressure or PIDPressure")
	}
}

// named lists at most maxNamed node names, counting the rest.
func named(names []string) string {
	if len(names) <= maxNamed {
		return english.List(names)
	}
	return english.List(append(slices.Clone(names[:maxNamed]), fmt.Sprintf("%d more", len(names)-maxNamed)))
}
