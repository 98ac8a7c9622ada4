//go:build tools

// Package tools pins kwok, which plays the kubelet (fake nodes, pod
// phases) in platc's end-to-end environment (e2e/): no container runtime
// runs on the machines platc is developed and tested on.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
