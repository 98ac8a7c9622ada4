package preflight

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/internal/testenv"
)

// TestDiscoveredPermissions: the permissions only discovery can name are
// asked after the credentials are proven, with the others. On the real
// API server, the deployer (granted nothing here) is warned about an
// optional one, and the action is not blocked by it; against a server
// that does not answer, Discovered is never called, so a failed
// discovery cannot hide that the server is unreachable.
func TestDiscoveredPermissions(t *testing.T) {
	ctx := context.Background()
	down, err := cluster.New(&rest.Config{Host: "http://127.0.0.1:1"}, "platc-test", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r := CheckCluster(ctx, down, ClusterOptions{Discovered: func() []Permission {
		t.Error("Discovered called against a server that does not answer")
		return nil
	}})
	if !r.Unreachable {
		t.Errorf("unreachable server: %+v", r.Checks)
	}

	s := testenv.Require(t)
	rc, err := clientcmd.RESTConfigFromKubeConfig(s.Kubeconfig(testenv.DeployerToken))
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(rc, "platc-test", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	called := 0
	r = CheckCluster(ctx, c, ClusterOptions{Discovered: func() []Permission {
		called++
		return []Permission{{Verb: "get", Group: "argoproj.io", Resource: "cronworkflows", Namespace: "nowhere", Name: "db-backup", Optional: true, Why: "to skip the wait"}}
	}})
	if called != 1 {
		t.Errorf("Discovered called %d times, want 1", called)
	}
	var warned string
	for _, ch := range r.Checks {
		if ch.Name == "permissions-optional" && ch.Status == Warn {
			warned = ch.Message
		}
	}
	if !strings.Contains(warned, "get cronworkflows.argoproj.io db-backup in namespace nowhere (to skip the wait)") {
		t.Errorf("no warning naming the discovered permission: %+v", r.Checks)
	}
	if len(r.Denied) > 0 {
		t.Errorf("an optional permission blocks: %v", r.Denied)
	}
}
