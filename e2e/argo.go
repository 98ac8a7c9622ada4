package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// applyCRDFiles creates the CRDs in the YAML files matching glob and
// waits until the API server serves them.
func (e *Env) applyCRDFiles(ctx context.Context, glob string) error {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRDs at %s (is PLATC_E2E_SRC right?)", glob)
	}
	var objs []map[string]any
	for _, f := range files {
		if strings.HasSuffix(f, "kustomization.yaml") {
			continue
		}
		docs, err := readObjects(f)
		if err != nil {
			return err
		}
		for _, obj := range docs {
			if obj["kind"] == "CustomResourceDefinition" {
				objs = append(objs, obj)
			}
		}
	}
	return e.applyCRDs(ctx, objs)
}

// readObjects reads every object of a multi-document YAML file.
func readObjects(file string) ([]map[string]any, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var objs []map[string]any
	for _, doc := range bytes.Split(b, []byte("\n---")) {
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if obj != nil {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}

func (e *Env) applyCRDs(ctx context.Context, objs []map[string]any) error {
	return e.cp.ApplyCRDs(ctx, objs, time.Minute)
}

// ArgoCD is the running Argo CD.
type ArgoCD struct {
	Namespace string
	Addr      string // argocd-server on loopback
	Insecure  bool   // served without TLS (server.insecure)
	// AdminPassword is the initial admin password argocd-server chose.
	AdminPassword string
	cliHome       string
}

// argoCDEnv is the environment of Argo CD's processes, with their state
// under the environment's directory.
func (e *Env) argoCDEnv(ns string) (env []string, state string, err error) {
	kubeconfig, err := e.kubeconfigFile(ns)
	if err != nil {
		return nil, "", err
	}
	state = filepath.Join(e.opts.Dir, "argocd")
	for _, d := range []string{"tls", "ssh", "gnupg", "static", "tmp"} {
		if err := os.MkdirAll(filepath.Join(state, d), 0o700); err != nil {
			return nil, "", err
		}
	}
	env = []string{
		"KUBECONFIG=" + kubeconfig,
		// Outside a cluster, Argo CD takes the kubeconfig's cluster for
		// the in-cluster destination https://kubernetes.default.svc.
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"ARGOCD_TLS_DATA_PATH=" + filepath.Join(state, "tls"),
		"ARGOCD_SSH_DATA_PATH=" + filepath.Join(state, "ssh"),
		"ARGOCD_GNUPGHOME=" + filepath.Join(state, "gnupg"),
		"ARGOCD_GPG_ENABLED=false",
		"TMPDIR=" + filepath.Join(state, "tmp"),
		"PATH=" + e.ToolPath(),
	}
	return env, state, nil
}

// startRedis starts Debian's redis-server for Argo CD with the
// container's arguments (the upstream chart's --save, --appendonly and
// --requirepass; none from the stand-in, which then gets the same
// defaults without a password) and returns its address.
func (e *Env) startRedis(ctx context.Context, args []string) (string, *proc, error) {
	redisPort, _ := freePort()
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, err
	}
	if len(args) == 0 {
		args = []string{"--save", "", "--appendonly", "no"}
	}
	p, err := e.procs.Start("redis", redisBin, append(slices.Clone(args), "--port", strconv.Itoa(redisPort), "--bind", "127.0.0.1",
		"--protected-mode", "no"), nil)
	if err != nil {
		return "", nil, err
	}
	redis := fmt.Sprintf("127.0.0.1:%d", redisPort)
	return redis, p, waitFor(ctx, p, "redis", 30*time.Second, dialCheck(redis))
}

// startRepoServer starts the repo-server, which reaches the simulated
// internet through the proxy, and returns its address.
func (e *Env) startRepoServer(ctx context.Context, args, env []string, state, redis string) (string, *proc, error) {
	rp, rm := ports()
	repoEnv := append(slices.Clone(env),
		// The repo-server fetches charts and Git repositories through the
		// simulated internet, and trusts its CA.
		"HTTPS_PROXY="+e.net.ProxyURL(), "HTTP_PROXY="+e.net.ProxyURL(),
		"https_proxy="+e.net.ProxyURL(), "http_proxy="+e.net.ProxyURL(),
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"SSL_CERT_FILE="+e.caFile, "GIT_SSL_CAINFO="+e.caFile,
		"HOME="+filepath.Join(state, "tmp"),
		// The socket through which git's askpass helper asks the
		// repo-server for a repository's login. Its default is one path
		// in /tmp, which every box on the machine would share: a helper
		// would ask another box's repo-server and be told "unknown nonce".
		"ARGOCD_ASK_PASS_SOCK="+filepath.Join(state, "askpass.sock"),
		// v3.2's repo-server verifies nothing without GPG; no wrapper needed.
	)
	p, err := e.procs.Start("argocd-repo-server", e.bin("argocd-repo-server"), append(slices.Clone(args),
		"--port", strconv.Itoa(rp), "--metrics-port", strconv.Itoa(rm), "--address", "127.0.0.1",
		"--redis", redis, "--loglevel", "info",
	), repoEnv)
	if err != nil {
		return "", nil, err
	}
	repo := fmt.Sprintf("127.0.0.1:%d", rp)
	return repo, p, waitFor(ctx, p, "argocd-repo-server", 90*time.Second, dialCheck(repo))
}

// startArgoCDServer starts argocd-server and waits until it serves;
// insecure says it serves plain HTTP (ARGOCD_SERVER_INSECURE in env,
// from server.insecure of argocd-cmd-params-cm).
func (e *Env) startArgoCDServer(ctx context.Context, chartArgs, env []string, state, redis, repo string, insecure bool) (string, *proc, error) {
	sp, sm := ports()
	args := append(slices.Clone(chartArgs), "--port", strconv.Itoa(sp), "--metrics-port", strconv.Itoa(sm), "--address", "127.0.0.1",
		"--redis", redis, "--repo-server", repo, "--staticassets", filepath.Join(state, "static"), "--loglevel", "info")
	p, err := e.procs.Start("argocd-server", e.bin("argocd-server"), args, env)
	if err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sp)
	scheme := "https"
	if insecure {
		scheme = "http"
	}
	// A readiness probe, like the kubelet's: it does not verify the
	// certificate (argocd-server's own, self-signed, when it serves TLS).
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // a probe, not a client
	return addr, p, waitFor(ctx, p, "argocd-server", 120*time.Second, httpCheck(hc, scheme+"://"+addr+"/healthz"))
}

// bin is the path of a component's binary.
func (e *Env) bin(name string) string { return filepath.Join(e.opts.Bin, name) }

// ports returns two free ports.
func ports() (int, int) { a, _ := freePort(); b, _ := freePort(); return a, b }

var clusterPortForwardGVR = schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "clusterportforwards"}

// CLI runs the real argocd CLI as the admin against this Argo CD, the
// way an operator at a terminal would.
func (e *Env) CLI(ctx context.Context, a *ArgoCD, args ...string) (string, error) {
	opts := []string{"--server", a.Addr}
	if a.Insecure {
		opts = append(opts, "--plaintext")
	}
	cmd := exec.CommandContext(ctx, filepath.Join(e.opts.Bin, "argocd"), append(args, opts...)...)
	cmd.Env = []string{"HOME=" + a.cliHome, "PATH=" + e.ToolPath(), "SSL_CERT_FILE=" + e.caFile}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("argocd %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// WorkflowsConfig is what the argo-workflows chart would give the
// workflow controller from platc's values: the environment variables and
// arguments platc adds (controller.extraEnv and controller.extraArgs of
// argo_workflows_values in the generated group_vars). Every other
// setting is the controller's default, as the chart leaves it. The
// environment's controller gets them through the argo-workflows stand-in
// chart (charts.go); TestWorkflowsValues reads them with this to check
// what platc generates.
type WorkflowsConfig struct {
	Namespace string
	Env       []string // NAME=value
	Args      []string
}

// ParseWorkflowsValues reads the controller's settings from the
// generated group_vars (ansible/inventories/<env>/group_vars/all.yml).
func ParseWorkflowsValues(groupVars []byte, namespace string) (*WorkflowsConfig, error) {
	var v struct {
		Values struct {
			Controller struct {
				ExtraEnv []struct {
					Name      string `json:"name"`
					Value     string `json:"value"`
					ValueFrom any    `json:"valueFrom"`
				} `json:"extraEnv"`
				ExtraArgs []string `json:"extraArgs"`
			} `json:"controller"`
		} `json:"argo_workflows_values"`
	}
	if err := yaml.Unmarshal(groupVars, &v); err != nil {
		return nil, fmt.Errorf("group_vars: %w", err)
	}
	cfg := &WorkflowsConfig{Namespace: namespace, Args: v.Values.Controller.ExtraArgs}
	for _, e := range v.Values.Controller.ExtraEnv {
		// A reference would need the kubelet's resolution; platc ships
		// plain values only, and the harness should not guess.
		if e.Name == "" || e.ValueFrom != nil {
			return nil, fmt.Errorf("group_vars: argo_workflows_values.controller.extraEnv %q: only name and value are supported here", e.Name)
		}
		cfg.Env = append(cfg.Env, e.Name+"="+e.Value)
	}
	return cfg, nil
}
