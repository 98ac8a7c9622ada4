package preflight

import (
	"os"
	"testing"

	"github.com/platc/platc/internal/testenv"
)

// The shared test API server (cluster_test.go) is stopped when the
// package's tests end; without this every run left an etcd and a
// kube-apiserver behind.
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Stop()
	os.Exit(code)
}
