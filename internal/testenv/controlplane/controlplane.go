// Package controlplane starts the one test control plane of the
// repository: a real etcd (Debian's etcd-server) and a real
// kube-apiserver on loopback, with static-token users, and applies CRDs.
// internal/testenv (the executor's integration tests) and e2e (the
// platform-in-a-box, which adds the controller-manager, the scheduler,
// kwok and the Argo components around it) both start theirs here, so the
// flags, limits and readiness checks are decided once.
//
// It imports no testing package: the e2e-run command links it.
package controlplane

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// User is a static-token user (--token-auth-file).
type User struct {
	Token, Name string
	Groups      []string
}

// Options configure a control plane. The flags every test control plane
// shares are fixed here; what differs is an option.
type Options struct {
	// Dir holds etcd's data, the API server's certificates and keys, and
	// logs/ (etcd.log, kube-apiserver.log). It must exist.
	Dir string
	// Etcd and APIServer are the binaries.
	Etcd, APIServer string
	// Users are the static-token users; the first is the one Start
	// authenticates as to check readiness and apply CRDs, so it must be
	// in system:masters.
	Users []User
	// Authorization is --authorization-mode (default RBAC).
	Authorization string
	// ServiceCIDR is --service-cluster-ip-range (default 10.96.0.0/16).
	ServiceCIDR string
	// DisableAdmission lists admission plugins to turn off, each with
	// the caller's reason beside it.
	DisableAdmission []string
	// EtcdFlags and APIServerFlags are added to the shared flags.
	EtcdFlags, APIServerFlags []string
	// Ready bounds the wait for etcd and then the API server (default
	// 120s each).
	Ready time.Duration
	// Procs runs the processes; nil means a new one in Dir. A caller
	// that runs more processes passes its own, so they stop in reverse
	// order of starting (controllers before the API server).
	Procs *Procs
}

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	URL     string
	CA      []byte // PEM bundle that verifies the serving certificate
	CAFile  string // the same, as a file
	SAKey   string // the service-account signing key file (PEM)
	Procs   *Procs
	Etcd    *Proc
	API     *Proc
	admin   string
	ownProc bool
}

// Start starts etcd and kube-apiserver in opts.Dir and waits until the
// API server is ready. On error nothing is left running.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	if len(opts.Users) == 0 {
		return nil, errors.New("controlplane: no users: the first must be an admin")
	}
	if opts.Authorization == "" {
		opts.Authorization = "RBAC"
	}
	if opts.ServiceCIDR == "" {
		opts.ServiceCIDR = "10.96.0.0/16"
	}
	if opts.Ready <= 0 {
		opts.Ready = 120 * time.Second
	}
	c := &ControlPlane{Procs: opts.Procs, admin: opts.Users[0].Token}
	if c.Procs == nil {
		c.Procs, c.ownProc = &Procs{Dir: opts.Dir}, true
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	etcd, err := c.startEtcd(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := c.startAPIServer(ctx, opts, etcd); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops the processes Start started, if it made their Procs;
// otherwise stopping them is the caller's, with its own.
func (c *ControlPlane) Stop() {
	if c.ownProc {
		c.Procs.Stop(10 * time.Second)
	}
}

func (c *ControlPlane) startEtcd(ctx context.Context, opts Options) (string, error) {
	ports, err := freePorts(2)
	if err != nil {
		return "", err
	}
	client, peer := fmt.Sprintf("http://127.0.0.1:%d", ports[0]), fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	args := append([]string{
		"--name=platc-test", "--data-dir=" + filepath.Join(opts.Dir, "etcd"),
		"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=platc-test=" + peer,
		// A test cluster: losing it on a crash costs nothing.
		"--unsafe-no-fsync", "--log-level=warn",
	}, opts.EtcdFlags...)
	if c.Etcd, err = c.Procs.Start("etcd", opts.Etcd, args, nil); err != nil {
		return "", err
	}
	return client, WaitFor(ctx, c.Etcd, "etcd", opts.Ready, DialCheck(strings.TrimPrefix(client, "http://")))
}

// keyFiles writes the service-account signing key and the token file.
func (c *ControlPlane) keyFiles(opts Options) (tokens string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	c.SAKey = filepath.Join(opts.Dir, "sa.key")
	if err := os.WriteFile(c.SAKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, u := range opts.Users {
		// token,user,uid[,"group1,group2"]; names are the caller's
		// constants, never user input.
		fmt.Fprintf(&b, "%s,%s,uid-%s", u.Token, u.Name, u.Name)
		if len(u.Groups) > 0 {
			fmt.Fprintf(&b, ",%q", strings.Join(u.Groups, ","))
		}
		b.WriteByte('\n')
	}
	tokens = filepath.Join(opts.Dir, "tokens.csv")
	return tokens, os.WriteFile(tokens, []byte(b.String()), 0o600)
}

func (c *ControlPlane) startAPIServer(ctx context.Context, opts Options, etcd string) error {
	tokens, err := c.keyFiles(opts)
	if err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	certDir := filepath.Join(opts.Dir, "apiserver")
	args := []string{
		"--etcd-servers=" + etcd,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + certDir,
		"--token-auth-file=" + tokens,
		"--authorization-mode=" + opts.Authorization,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.SAKey, "--service-account-signing-key-file=" + c.SAKey,
		"--service-cluster-ip-range=" + opts.ServiceCIDR,
		// Debian's etcd 3.4.23 is older than the 3.4.31 that WatchList
		// needs (its progress notifications): with it on, informers see
		// changes only at relists.
		"--feature-gates=WatchList=false",
		"--enable-priority-and-fairness=false", "--profiling=false",
	}
	if len(opts.DisableAdmission) > 0 {
		args = append(args, "--disable-admission-plugins="+strings.Join(opts.DisableAdmission, ","))
	}
	args = append(args, opts.APIServerFlags...)
	if c.API, err = c.Procs.Start("kube-apiserver", opts.APIServer, args, nil); err != nil {
		return err
	}
	c.URL = fmt.Sprintf("https://127.0.0.1:%d", port)
	// The serving certificate is self-signed and written by the API
	// server itself, so readiness is asked before it can be trusted.
	hc := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	ready := func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+c.admin)
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return errors.New(resp.Status)
		}
		return nil
	}
	if err := WaitFor(ctx, c.API, "kube-apiserver", opts.Ready, ready); err != nil {
		return err
	}
	c.CAFile = filepath.Join(certDir, "apiserver.crt")
	c.CA, err = os.ReadFile(c.CAFile)
	return err
}

// Rest is a client configuration authenticating with token.
func (c *ControlPlane) Rest(token string) *rest.Config {
	return &rest.Config{Host: c.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: c.CA}, Timeout: 30 * time.Second}
}

// Kubeconfig is a kubeconfig for token, whose context has namespace ns
// (none when empty).
func (c *ControlPlane) Kubeconfig(token, ns string) []byte {
	return Kubeconfig(c.URL, c.CA, token, ns)
}

// Kubeconfig builds a kubeconfig for a server, CA bundle, token and
// namespace (none when empty).
func Kubeconfig(server string, ca []byte, token, ns string) []byte {
	nsField := ""
	if ns != "" {
		nsField = ", namespace: " + ns
	}
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
  context: {cluster: test, user: test%s}
current-context: test
`, server, base64.StdEncoding.EncodeToString(ca), token, nsField))
}

// createBackoff retries a create that timed out: 1s, 2s, 4s apart.
var createBackoff = wait.Backoff{Steps: 4, Duration: time.Second, Factor: 2}

// transient is an error a retry can cure: one of the connection (a
// timeout, a stream the server reset) rather than an answer, or an
// overloaded server's answer.
func transient(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return true
	}
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err)
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ApplyCRDs creates the CRDs (an existing one is kept) and waits, up to
// limit each, until the API server serves them (Established).
func (c *ControlPlane) ApplyCRDs(ctx context.Context, crds []map[string]any, limit time.Duration) error {
	// A CRD as large as Argo's Workflow takes the API server a while on
	// a busy machine: the request may take as long as the whole limit.
	cfg := c.Rest(c.admin)
	cfg.Timeout = limit
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var names []string
	for _, obj := range crds {
		u := &unstructured.Unstructured{Object: obj}
		if u.GetKind() != "CustomResourceDefinition" {
			return fmt.Errorf("ApplyCRDs: %s %s is not a CustomResourceDefinition", u.GetKind(), u.GetName())
		}
		// A freshly ready API server on a busy machine can time a
		// request out; that is retried, anything else is not.
		err := retry.OnError(createBackoff, transient, func() error {
			_, err := dc.Resource(crdGVR).Create(ctx, u, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return nil
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("create CRD %s: %w", u.GetName(), err)
		}
		names = append(names, u.GetName())
	}
	for _, n := range names {
		err := WaitFor(ctx, nil, "CRD "+n+" to be Established", limit, func(ctx context.Context) error {
			u, err := dc.Resource(crdGVR).Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				if m, _ := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
					return nil
				}
			}
			return errors.New("not Established")
		})
		if err != nil {
			return err
		}
	}
	return nil
}
