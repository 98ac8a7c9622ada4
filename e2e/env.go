package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/platc/platc/internal/testenv/controlplane"
)

// Options configure an environment.
type Options struct {
	// Bin is the directory of the component binaries .ci/e2e/build.sh
	// prints (PLATC_E2E_BIN).
	Bin string
	// Src is the directory of the components' module sources, for the
	// CRDs and fixtures they ship (PLATC_E2E_SRC); build.sh prints it too.
	Src string
	// Dir holds the environment's state and logs; it is created.
	Dir string
	// Platc is the platc binary the step image holds (the Dockerfile's
	// final stage copies the one it built), for the steps that run
	// `platc step`: the build under test, not a release.
	Platc string
	// Nodes is the number of kwok's fake nodes (default 3).
	Nodes int
	// Log receives progress lines; nil discards them.
	Log func(format string, args ...any)
	// Diagnose adds what a diagnostic run needs and a measurement run
	// cannot afford (apiprof.go): every request in the audit log and the
	// application controller's debug log.
	Diagnose bool
}

// Env is a running platform-in-a-box: a real control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler), kwok playing
// the kubelets, and the network, sources and simulated runtimes of this
// package. Argo CD and the workflow controller are added by Install.
type Env struct {
	opts  Options
	procs *procs
	cp    *controlplane.ControlPlane
	ca    *ca
	net   *network
	src   *sources

	URL        string // the API server
	AdminToken string
	apiCA      []byte
	Kubeconfig string // admin kubeconfig file

	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	rest    *rest.Config

	caFile string // PEM of the environment's CA, for SSL_CERT_FILE
	tools  string // directory of the tools the harness and executor run

	// node is the step pods' "node": a directory the steps' non-root
	// user can enter (the environment's own directory may sit in a
	// private temporary directory), holding the step image's binaries
	// (image/bin) and each pod's scratch (pods/).
	node       string
	image      *stepImage
	imageBin   string
	imageNotes []string // what the image has that this machine cannot provide

	mapperOnce sync.Once
	mapper     *restmapper.DeferredDiscoveryRESTMapper
}

// Static tokens (--token-auth-file). Everything the environment itself
// does (components, harness) authenticates as the admin; the deployer
// has no role until a scenario grants it one.
const (
	adminToken    = "platc-e2e-admin"
	deployerToken = "platc-e2e-deployer"
)

func (e *Env) logf(format string, args ...any) {
	if e.opts.Log != nil {
		e.opts.Log(format, args...)
	}
}

// Start brings the control plane and kwok up. Call Close when done.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	if opts.Nodes <= 0 {
		opts.Nodes = 3
	}
	for _, b := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "workflow-controller", "argocd", "helm", "kubectl", "kubeseal", "yq"} {
		if _, err := os.Stat(filepath.Join(opts.Bin, b)); err != nil {
			return nil, fmt.Errorf("component %s is not built: %v (run .ci/e2e/build.sh and set PLATC_E2E_BIN to the directory it prints)", b, err)
		}
	}
	for _, b := range []string{"etcd", "redis-server", "git", "bash", "jq", "timeout"} {
		if _, err := exec.LookPath(b); err != nil {
			return nil, fmt.Errorf("%s is not on PATH (Debian packages: etcd-server, redis-server, git, bash, jq, coreutils)", b)
		}
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	e := &Env{opts: opts, procs: &procs{Dir: opts.Dir}, AdminToken: adminToken}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	if e.ca, err = newCA(); err != nil {
		return nil, err
	}
	e.caFile = filepath.Join(opts.Dir, "ca.pem")
	if err := os.WriteFile(e.caFile, e.ca.certPEM, 0o644); err != nil {
		return nil, err
	}
	if e.net, err = newNetwork(e.ca); err != nil {
		return nil, err
	}
	e.src = newSources(filepath.Join(opts.Dir, "sources"))
	if err := e.startControlPlane(ctx); err != nil {
		return nil, err
	}
	if err := e.startKwok(ctx); err != nil {
		return nil, err
	}
	if err := e.toolDir(); err != nil {
		return nil, err
	}
	if err := e.stepNode(); err != nil {
		return nil, err
	}
	return e, nil
}

// Close stops every process. The directory is left for inspection.
func (e *Env) Close() {
	if e.procs != nil {
		e.procs.Stop(10 * time.Second)
	}
	if e.net != nil {
		e.net.close()
	}
	if e.node != "" {
		_ = os.RemoveAll(e.node)
	}
}

// Dir is the environment's directory: logs/, sources/, kubeconfigs.
func (e *Env) Dir() string { return e.opts.Dir }

// startControlPlane starts etcd and kube-apiserver (the control plane
// the executor's tests start too), then the controllers.
func (e *Env) startControlPlane(ctx context.Context) error {
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		return err
	}
	dir := e.opts.Dir
	auditPolicy := filepath.Join(dir, "audit-policy.yaml")
	policy := execAuditPolicy
	if e.opts.Diagnose {
		policy = fullAuditPolicy
	}
	if err := os.WriteFile(auditPolicy, []byte(policy), 0o644); err != nil {
		return err
	}
	e.cp, err = controlplane.Start(ctx, controlplane.Options{
		Dir: dir, Etcd: etcd, APIServer: filepath.Join(e.opts.Bin, "kube-apiserver"),
		Procs: e.procs,
		// The admin and the least-privileged deployer.
		Users: []controlplane.User{
			{Token: adminToken, Name: "admin", Groups: []string{"system:masters"}},
			{Token: deployerToken, Name: "deployer"},
		},
		Authorization: "Node,RBAC",
		// New nodes get the not-ready taint, which only the node
		// lifecycle controller (off here, see startControllers) would
		// remove.
		DisableAdmission: []string{"TaintNodesByCondition"},
		EtcdFlags:        []string{"--quota-backend-bytes=8589934592"},
		APIServerFlags: []string{
			// kwok serves the fake nodes' kubelet API on loopback, with
			// a certificate from the environment's CA.
			"--kubelet-preferred-address-types=InternalIP",
			"--kubelet-certificate-authority=" + e.caFile,
			// The workflow controller signals a step's containers
			// through pods/exec (argoexec kill); kwok cannot run that
			// command, so the step runtime reads the requests from the
			// audit log (steps.go).
			"--audit-policy-file=" + auditPolicy, "--audit-log-path=" + e.auditLog(), "--audit-log-format=json",
			"--max-requests-inflight=2000", "--max-mutating-requests-inflight=1000",
			// /debug/pprof, on by default in a real cluster (the
			// control plane the unit tests share turns it off).
			"--profiling=true",
		},
	})
	if err != nil {
		return err
	}
	e.URL = e.cp.URL
	if err := e.connect(); err != nil {
		return err
	}
	return e.startControllers(ctx, e.cp.SAKey)
}

// connect writes the admin kubeconfig and makes the environment's
// clients.
func (e *Env) connect() error {
	var err error
	dir := e.opts.Dir
	e.apiCA = e.cp.CA
	e.Kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(e.Kubeconfig, e.kubeconfig("default"), 0o600); err != nil {
		return err
	}
	e.rest = &rest.Config{Host: e.URL, BearerToken: adminToken, TLSClientConfig: rest.TLSClientConfig{CAData: e.apiCA}, QPS: 100, Burst: 200, Timeout: 60 * time.Second}
	if e.Kube, err = kubernetes.NewForConfig(e.rest); err != nil {
		return err
	}
	if e.Dynamic, err = dynamic.NewForConfig(e.rest); err != nil {
		return err
	}
	return nil
}

// startControllers starts kube-controller-manager and kube-scheduler and
// waits for the controller-manager.
func (e *Env) startControllers(ctx context.Context, saKey string) error {
	caPath := e.cp.CAFile
	cmPort, _ := freePort()
	p, err := e.procs.Start("kube-controller-manager", filepath.Join(e.opts.Bin, "kube-controller-manager"), []string{
		"--kubeconfig=" + e.Kubeconfig, "--leader-elect=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", cmPort),
		"--service-account-private-key-file=" + saKey, "--root-ca-file=" + caPath,
		// Nothing sends kubelet heartbeats for the fake nodes (kwok
		// sets their status once), so the node lifecycle controller
		// would mark them NotReady and evict every pod.
		"--controllers=*,-node-lifecycle-controller,-cloud-node-lifecycle-controller,-node-ipam-controller,-service-lb-controller,-node-route-controller,-taint-eviction-controller",
		"--concurrent-deployment-syncs=20", "--concurrent-replicaset-syncs=20", "--concurrent-gc-syncs=40",
		"--kube-api-qps=200", "--kube-api-burst=400",
	}, nil)
	if err != nil {
		return err
	}
	schedPort, _ := freePort()
	if _, err := e.procs.Start("kube-scheduler", filepath.Join(e.opts.Bin, "kube-scheduler"), []string{
		"--kubeconfig=" + e.Kubeconfig, "--leader-elect=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", schedPort),
		"--kube-api-qps=200", "--kube-api-burst=400",
	}, nil); err != nil {
		return err
	}
	// The controller-manager is up once it has made the default
	// ServiceAccount every namespace gets.
	// The controller-manager is up once it has made the default
	// ServiceAccount every namespace gets.
	return waitFor(ctx, p, "kube-controller-manager", 90*time.Second, func(ctx context.Context) error {
		_, err := e.Kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err
	})
}

// kubeconfig is an admin kubeconfig whose context has namespace ns (Argo
// CD's components take their namespace from it).
func (e *Env) kubeconfig(ns string) []byte { return e.kubeconfigFor(adminToken, ns) }

// DeployerKubeconfig writes a kubeconfig for the user "deployer", who
// may do only what Grant gives it, and returns its path.
func (e *Env) DeployerKubeconfig() (string, error) {
	p := filepath.Join(e.opts.Dir, "deployer.kubeconfig")
	return p, os.WriteFile(p, e.kubeconfigFor(deployerToken, "default"), 0o600)
}

func (e *Env) kubeconfigFor(token, ns string) []byte {
	return controlplane.Kubeconfig(e.URL, e.apiCA, token, ns)
}

// kubeconfigFile writes kubeconfig(ns) once and returns its path.
func (e *Env) kubeconfigFile(ns string) (string, error) {
	p := filepath.Join(e.opts.Dir, "kubeconfig-"+ns)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	return p, os.WriteFile(p, e.kubeconfig(ns), 0o600)
}

func (e *Env) startKwok(ctx context.Context) error {
	cfg := filepath.Join(e.opts.Dir, "kwok.yaml")
	port, _ := freePort()
	if err := os.WriteFile(cfg, []byte(strings.Replace(kwokConfig, "nodeIP: 127.0.0.1", fmt.Sprintf("nodeIP: 127.0.0.1\n  nodePort: %d", port), 1)), 0o644); err != nil {
		return err
	}
	crt, key, err := e.ca.issue("127.0.0.1", "localhost")
	if err != nil {
		return err
	}
	crtFile, keyFile := filepath.Join(e.opts.Dir, "kwok.crt"), filepath.Join(e.opts.Dir, "kwok.key")
	if err := os.WriteFile(crtFile, crt, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		return err
	}
	// Port-forward rules come from the API server, where Argo CD's
	// install adds them (argo.go).
	if err := e.applyCRDFiles(ctx, filepath.Join(e.opts.Src, "kwok", "kustomize", "crd", "bases", "kwok.x-k8s.io_clusterportforwards.yaml")); err != nil {
		return err
	}
	p, err := e.procs.Start("kwok", filepath.Join(e.opts.Bin, "kwok"), []string{
		"--kubeconfig=" + e.Kubeconfig, "--config=" + cfg,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		fmt.Sprintf("--server-address=127.0.0.1:%d", port),
		"--tls-cert-file=" + crtFile, "--tls-private-key-file=" + keyFile,
		"--enable-crds=ClusterPortForward",
	}, nil)
	if err != nil {
		return err
	}
	for i := 0; i < e.opts.Nodes; i++ {
		if err := e.createNode(ctx, fmt.Sprintf("kwok-node-%d", i)); err != nil {
			return err
		}
	}
	return waitFor(ctx, p, "kwok nodes", 60*time.Second, func(ctx context.Context) error {
		nodes, err := e.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		if ready < e.opts.Nodes {
			return fmt.Errorf("%d of %d nodes Ready", ready, e.opts.Nodes)
		}
		return nil
	})
}

func (e *Env) createNode(ctx context.Context, name string) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("2000"),
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels: map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
				"kubernetes.io/arch": "amd64", "type": "kwok", "node-role.kubernetes.io/worker": ""},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	_, err := e.Kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// toolDir makes the directory of tools the step processes and the
// executor find on PATH: the components built for the environment, and
// Debian's bash, jq, timeout and git.
func (e *Env) toolDir() error {
	e.tools = filepath.Join(e.opts.Dir, "tools")
	if err := os.MkdirAll(e.tools, 0o755); err != nil {
		return err
	}
	for _, b := range []string{"argocd", "helm", "kubectl", "kubeseal", "yq"} {
		target, err := filepath.EvalSymlinks(filepath.Join(e.opts.Bin, b))
		if err != nil {
			return err
		}
		link := filepath.Join(e.tools, b)
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return err
		}
	}
	return nil
}

// stepNode makes the step pods' node directory and fills the step image
// from the repository's Dockerfile.
func (e *Env) stepNode() error {
	df, err := findDockerfile()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(df)
	if err != nil {
		return err
	}
	if e.image, err = readStepImage(string(b)); err != nil {
		return err
	}
	if e.node, err = os.MkdirTemp("", "platc-e2e-node-"); err != nil {
		return err
	}
	// Enter, not list: the pods' directories are not each other's.
	if err := os.Chmod(e.node, 0o711); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(e.node, "pods"), 0o755); err != nil {
		return err
	}
	e.imageBin = filepath.Join(e.node, "image", "bin")
	absent, err := e.image.build(e.imageBin, e.opts.Bin, e.opts.Platc)
	if err != nil {
		return fmt.Errorf("step image: %w", err)
	}
	e.imageNotes = absent
	if len(absent) > 0 {
		e.logf("step image: not available on this machine, so absent from the steps' PATH: %s", strings.Join(absent, ", "))
	}
	return nil
}

// ToolPath is a PATH for processes the environment runs: its tools, then
// the system's.
func (e *Env) ToolPath() string {
	return e.tools + ":/usr/local/bin:/usr/bin:/bin"
}

// execAuditPolicy records only pods/exec requests, when received.
const execAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [ResponseStarted, ResponseComplete, Panic]
rules:
- level: Metadata
  resources: [{group: "", resources: ["pods/exec"]}]
- level: None
`

func (e *Env) auditLog() string { return filepath.Join(e.opts.Dir, "logs", "audit.log") }
