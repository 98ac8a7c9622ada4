package testenv

import (
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/internal/testenv/controlplane"
)

//go:embed testdata/crds/*.yaml
var crdFiles embed.FS

// Static-token users (--token-auth-file). Admin is in system:masters;
// Nobody is authenticated and has no role at all.
const (
	AdminToken  = "platc-test-admin-token"
	NobodyToken = "platc-test-nobody-token"
	// DeployerToken belongs to user "deployer", whom tests grant exactly
	// the permissions an action needs.
	DeployerToken = "platc-test-deployer-token"
	// TeardownerToken belongs to user "teardowner", whom tests grant
	// exactly what a teardown needs (kept apart from deployer, so neither
	// test passes on the other's permissions).
	TeardownerToken = "platc-test-teardowner-token"
)

// Server is a running kube-apiserver, started by controlplane (the
// control plane the e2e environment starts too).
type Server struct {
	URL string
	CA  []byte // PEM bundle that verifies the serving certificate
	cp  *controlplane.ControlPlane
	dir string
}

var (
	once    sync.Once
	shared  *Server
	initErr error
	skipMsg string
)

// Require returns the shared API server, starting it on first use. It
// skips the test when the binaries are absent, unless
// PLATC_REQUIRE_APISERVER=1.
func Require(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, skipMsg, initErr = start() })
	if skipMsg != "" {
		if os.Getenv("PLATC_REQUIRE_APISERVER") == "1" {
			t.Fatalf("PLATC_REQUIRE_APISERVER=1 but %s", skipMsg)
		}
		t.Skip(skipMsg)
	}
	if initErr != nil {
		t.Fatalf("starting the test API server: %v", initErr)
	}
	return shared
}

// Stop stops the shared server; TestMain calls it.
func Stop() {
	if shared != nil {
		shared.cp.Stop()
		_ = os.RemoveAll(shared.dir)
	}
}

func start() (*Server, string, error) {
	apiserver := os.Getenv("PLATC_KUBE_APISERVER")
	if apiserver == "" {
		if p, err := exec.LookPath("kube-apiserver"); err == nil {
			apiserver = p
		}
	}
	if apiserver == "" {
		return nil, "no kube-apiserver: set PLATC_KUBE_APISERVER to a binary built from .ci/e2e/kube (see .ci/run)", nil
	}
	if _, err := os.Stat(apiserver); err != nil {
		return nil, fmt.Sprintf("PLATC_KUBE_APISERVER=%s: %v", apiserver, err), nil
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		return nil, "no etcd on PATH: install Debian's etcd-server package", nil
	}
	dir, err := os.MkdirTemp("", "platc-apiserver-")
	if err != nil {
		return nil, "", err
	}
	ctx := context.Background()
	cp, err := controlplane.Start(ctx, controlplane.Options{
		Dir: dir, Etcd: etcd, APIServer: apiserver,
		Users: []controlplane.User{
			{Token: AdminToken, Name: "admin", Groups: []string{"system:masters"}},
			{Token: NobodyToken, Name: "nobody"},
			{Token: DeployerToken, Name: "deployer"},
			{Token: TeardownerToken, Name: "teardowner"},
		},
		// No controller-manager creates service accounts, so the
		// admission plugin that requires them would refuse every pod
		// fixture.
		DisableAdmission: []string{"ServiceAccount"},
	})
	if err == nil {
		var crds []map[string]any
		if crds, err = embeddedCRDs(); err == nil {
			err = cp.ApplyCRDs(ctx, crds, 2*time.Minute)
		}
		if err != nil {
			cp.Stop()
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, "", err
	}
	return &Server{URL: cp.URL, CA: cp.CA, cp: cp, dir: dir}, "", nil
}

// Rest returns a client configuration authenticating with token.
func (s *Server) Rest(token string) *rest.Config { return s.cp.Rest(token) }

// Kubeconfig returns a kubeconfig for token.
func (s *Server) Kubeconfig(token string) []byte {
	return Kubeconfig(s.URL, s.CA, token)
}

// Kubeconfig builds a kubeconfig for a server, CA bundle and token.
func Kubeconfig(server string, ca []byte, token string) []byte {
	return controlplane.Kubeconfig(server, ca, token, "")
}

// Clients returns admin clients.
func (s *Server) Clients(t testing.TB) (kubernetes.Interface, dynamic.Interface) {
	t.Helper()
	kc, err := kubernetes.NewForConfig(s.Rest(AdminToken))
	if err != nil {
		t.Fatal(err)
	}
	dc, err := dynamic.NewForConfig(s.Rest(AdminToken))
	if err != nil {
		t.Fatal(err)
	}
	return kc, dc
}

// embeddedCRDs are the Argo Workflows and Argo CD CRDs of testdata/crds.
func embeddedCRDs() ([]map[string]any, error) {
	entries, err := crdFiles.ReadDir("testdata/crds")
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, e := range entries {
		b, err := crdFiles.ReadFile("testdata/crds/" + e.Name())
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(b, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out = append(out, obj)
	}
	return out, nil
}
