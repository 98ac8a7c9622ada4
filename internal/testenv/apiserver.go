package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"embed"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
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

// Server is a running kube-apiserver.
type Server struct {
	URL   string
	CA    []byte // PEM bundle that verifies the serving certificate
	dir   string
	procs []*exec.Cmd
	logs  []*bytes.Buffer
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
		shared.stop()
	}
}

func (s *Server) stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		if p := s.procs[i].Process; p != nil {
			_ = p.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { _ = s.procs[i].Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = p.Kill()
			}
		}
	}
	_ = os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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
	s := &Server{dir: dir}
	if err := s.boot(apiserver, etcd); err != nil {
		// The error, with the tail of each process's log.
		msg := err.Error()
		for _, l := range s.logs {
			tail := l.String()
			if len(tail) > 4000 {
				tail = tail[len(tail)-4000:]
			}
			msg += "\n--- log tail ---\n" + tail
		}
		s.stop()
		return nil, "", fmt.Errorf("%s", msg)
	}
	return s, "", nil
}

// boot starts etcd and kube-apiserver in s.dir, waits until the API
// server is ready and installs the CRDs.
func (s *Server) boot(apiserver, etcd string) error {
	dir := s.dir
	clientPort, _ := freePort()
	peerPort, _ := freePort()
	if err := s.spawn(etcd,
		"--name=platc-test", "--data-dir="+filepath.Join(dir, "etcd"),
		fmt.Sprintf("--listen-client-urls=http://127.0.0.1:%d", clientPort),
		fmt.Sprintf("--advertise-client-urls=http://127.0.0.1:%d", clientPort),
		fmt.Sprintf("--listen-peer-urls=http://127.0.0.1:%d", peerPort),
		fmt.Sprintf("--initial-advertise-peer-urls=http://127.0.0.1:%d", peerPort),
		fmt.Sprintf("--initial-cluster=platc-test=http://127.0.0.1:%d", peerPort),
		"--log-level=error", "--unsafe-no-fsync"); err != nil {
		return err
	}

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saKey := filepath.Join(dir, "sa.key")
	if err := os.WriteFile(saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(AdminToken+",admin,uid-admin,\"system:masters\"\n"+
		NobodyToken+",nobody,uid-nobody\n"+DeployerToken+",deployer,uid-deployer\n"+TeardownerToken+",teardowner,uid-teardowner\n"), 0o600); err != nil {
		return err
	}
	port, _ := freePort()
	if err := s.spawn(apiserver,
		fmt.Sprintf("--etcd-servers=http://127.0.0.1:%d", clientPort),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir="+filepath.Join(dir, "certs"),
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+saKey, "--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		// No controller-manager creates service accounts, so the admission
		// plugin that requires them would refuse every pod fixture.
		"--disable-admission-plugins=ServiceAccount",
		"--enable-priority-and-fairness=false", "--profiling=false", "-v=0"); err != nil {
		return err
	}
	s.URL = fmt.Sprintf("https://127.0.0.1:%d", port)
	if err := s.waitReady(90 * time.Second); err != nil {
		return err
	}
	ca, err := os.ReadFile(filepath.Join(dir, "certs", "apiserver.crt"))
	if err != nil {
		return err
	}
	s.CA = ca
	if err := s.applyCRDs(); err != nil {
		return err
	}
	return nil
}

func (s *Server) spawn(bin string, args ...string) error {
	cmd := exec.Command(bin, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &syncWriter{w: &log}, &syncWriter{w: &log}
	cmd.Dir = s.dir
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	s.procs = append(s.procs, cmd)
	s.logs = append(s.logs, &log)
	return nil
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

func (s *Server) waitReady(limit time.Duration) error {
	hc := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest("GET", s.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		resp, err := hc.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, b)
		} else {
			last = err.Error()
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver not ready after %s: %s", limit, last)
}

// Rest returns a client configuration authenticating with token.
func (s *Server) Rest(token string) *rest.Config {
	return &rest.Config{Host: s.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: s.CA}, Timeout: 30 * time.Second}
}

// Kubeconfig returns a kubeconfig for token.
func (s *Server) Kubeconfig(token string) []byte {
	return Kubeconfig(s.URL, s.CA, token)
}

// Kubeconfig builds a kubeconfig for a server, CA bundle and token.
func Kubeconfig(server string, ca []byte, token string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: test
  user:
    token: %s
contexts:
- name: test
  context: {cluster: test, user: test}
current-context: test
`, server, base64.StdEncoding.EncodeToString(ca), token))
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

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func (s *Server) applyCRDs() error {
	// The CRDs with their full schemas are large: on a loaded machine
	// (2 cores, a load of 40) one create took over 30 s and the whole
	// over 2 minutes, and the server never booted.
	cfg := s.Rest(AdminToken)
	cfg.Timeout = 2 * time.Minute
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	entries, err := crdFiles.ReadDir("testdata/crds")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	var names []string
	for _, e := range entries {
		b, err := crdFiles.ReadFile("testdata/crds/" + e.Name())
		if err != nil {
			return err
		}
		var obj map[string]any
		if err := yaml.Unmarshal(b, &obj); err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		u := &unstructured.Unstructured{Object: obj}
		if _, err := dc.Resource(crdGVR).Create(ctx, u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	// Established means the API server serves the new resource.
	for _, n := range names {
		for {
			u, err := dc.Resource(crdGVR).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			est := false
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					est = true
				}
			}
			if est {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s not established", n)
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	return nil
}
