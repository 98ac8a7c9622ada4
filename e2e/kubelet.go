package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// processKubelet is simulated: it plays the kubelet for the pods of the
// charts, stand-in (charts.go) or upstream (upstream.go), whose
// containers are real processes here. When such a pod appears (known by
// its upstream labels, processOf), it starts the real binary, as a
// kubelet starts a container, with the container's arguments and its
// environment resolved as the kubelet resolves it (so
// ARGOCD_SERVER_INSECURE comes from the argocd-cmd-params-cm the chart
// wrote, REDIS_PASSWORD from the argocd-redis Secret); then it releases
// the pod to kwok, which makes it Running and Ready.
// Until then the pod stays Pending, so Helm's --wait and the roles'
// readiness checks wait for the process, not for kwok.
//
// What a pod cannot give a process on loopback is added here: listening
// addresses (free ports, which a ClusterPortForward maps the pod's
// container port to, so port-forwards reach the process), the addresses
// of the Services a component dials (Redis, the repo-server), and a
// kubeconfig (the processes run outside the cluster as the admin). The
// simulated network sends each Service that selects the pod, under all
// its cluster names, to the process.
//
// One process per component and namespace: a pod that replaces another
// (a rollout) is released at once. Processes are not restarted when the
// configuration changes; Argo CD reads its ConfigMaps at run time anyway.
// The pods a process plays, by the labels the upstream charts give them
// (app.kubernetes.io/part-of and app.kubernetes.io/component), which the
// stand-ins (charts.go) give them too: one rule for both. Every other pod
// of the charts (Dex, notifications, the ApplicationSet controller, the
// Argo Server, the Argo Events and Sealed Secrets controllers) runs under
// kwok with no process. processKey and processValues are the same rule for
// kwok's stages (kwok.go); TestProcessLabels holds them together.
var processes = map[string]string{
	"argocd/redis":                       "argocd-redis",
	"argocd/redis-secret-init":           "argocd-redis-secret-init",
	"argocd/repo-server":                 "argocd-repo-server",
	"argocd/application-controller":      "argocd-application-controller",
	"argocd/server":                      "argocd-server",
	"argo-workflows/workflow-controller": "workflow-controller",
}

const (
	labelPartOf    = "app.kubernetes.io/part-of"
	labelComponent = "app.kubernetes.io/component"
	processKey     = `'((.metadata.labels["app.kubernetes.io/part-of"] // "") + "/" + (.metadata.labels["app.kubernetes.io/component"] // ""))'`
	processValues  = `['argocd/redis', 'argocd/redis-secret-init', 'argocd/repo-server', 'argocd/application-controller', 'argocd/server', 'argo-workflows/workflow-controller']`
	// processSelector narrows the kubelet's list; processOf decides.
	processSelector = labelComponent + " in (redis,redis-secret-init,repo-server,application-controller,server,workflow-controller)"
)

// processOf names the process that plays pod, or "".
func processOf(pod *corev1.Pod) string {
	return processes[pod.Labels[labelPartOf]+"/"+pod.Labels[labelComponent]]
}

type processKubelet struct {
	e *Env

	mu      sync.Mutex
	running map[string]*podProcess // "namespace/process"
	waiting map[string]string      // "namespace/process" → why it has not started, last logged
}

// podProcess is one running process and the pod port it plays.
type podProcess struct {
	name, ns string
	port     int32  // the container port
	addr     string // where the process listens for it
	env      []string
	proc     *proc
}

func (e *Env) startProcessKubelet(ctx context.Context) *processKubelet {
	k := &processKubelet{e: e, running: map[string]*podProcess{}, waiting: map[string]string{}}
	go wait.UntilWithContext(ctx, k.sync, 250*time.Millisecond)
	return k
}

// get returns the process of a component, or nil.
func (k *processKubelet) get(ns, name string) *podProcess {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.running[ns+"/"+name]
}

func (k *processKubelet) sync(ctx context.Context) {
	e := k.e
	list, err := e.Kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: processSelector})
	if err != nil {
		return
	}
	pods := &corev1.PodList{}
	for _, pod := range list.Items {
		if processOf(&pod) != "" {
			pods.Items = append(pods.Items, pod)
		}
	}
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) })
	// A process whose pods are all gone (a release uninstalled, say)
	// stops, as the kubelet stops the containers of a deleted pod.
	have := map[string]bool{}
	for _, pod := range pods.Items {
		have[pod.Namespace+"/"+processOf(&pod)] = true
	}
	k.mu.Lock()
	var gone []*podProcess
	for key, p := range k.running {
		if !have[key] {
			gone = append(gone, p)
			delete(k.running, key)
		}
	}
	k.mu.Unlock()
	for _, p := range gone {
		p.proc.Stop(10 * time.Second)
		e.logf("process kubelet: stopped %s in %s: its pods are gone", p.name, p.ns)
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodPending || pod.Spec.NodeName == "" || pod.Annotations["platc.io/e2e-start"] != "" {
			continue
		}
		name := processOf(pod)
		key := pod.Namespace + "/" + name
		if name == "argocd-redis-secret-init" {
			// A Job's pod: its command runs to the end before the pod is
			// released, and kwok then completes it.
			if err := k.runRedisSecretInit(ctx, pod); err != nil {
				k.mu.Lock()
				if k.waiting[key] != err.Error() {
					k.waiting[key] = err.Error()
					e.logf("process kubelet: %s: %v", key, err)
				}
				k.mu.Unlock()
				continue
			}
			e.logf("process kubelet: ran argocd admin redis-initial-password for pod %s", pod.Name)
		} else if k.get(pod.Namespace, name) == nil {
			p, err := k.start(ctx, pod, name)
			if err != nil {
				k.mu.Lock()
				if k.waiting[key] != err.Error() {
					k.waiting[key] = err.Error()
					e.logf("process kubelet: %s not started: %v", key, err)
				}
				k.mu.Unlock()
				continue
			}
			k.mu.Lock()
			k.running[key] = p
			delete(k.waiting, key)
			k.mu.Unlock()
			if err := k.route(ctx, pod, p); err != nil {
				e.logf("process kubelet: %s: %v", key, err)
				continue
			}
			e.logf("process kubelet: started %s for pod %s at %s", name, pod.Name, p.addr)
		}
		patch := fmt.Sprintf(`{"metadata":{"annotations":{"platc.io/e2e-start":%q}}}`, time.Now().UTC().Format(time.RFC3339))
		if _, err := e.Kube.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			e.logf("process kubelet: release pod %s/%s: %v", pod.Namespace, pod.Name, err)
		}
	}
}

// start starts the process of pod's component name, once the components
// it dials run.
func (k *processKubelet) start(ctx context.Context, pod *corev1.Pod, name string) (*podProcess, error) {
	e := k.e
	if len(pod.Spec.Containers) == 0 || len(pod.Spec.Containers[0].Ports) == 0 {
		return nil, fmt.Errorf("pod %s has no container port", pod.Name)
	}
	c := &pod.Spec.Containers[0]
	// The pod's volumes are directories of its own, so the paths the
	// chart puts into the environment (HELM_CACHE_HOME=/helm-working-dir,
	// KUBECACHEDIR=/tmp/kubecache) land there and not on this machine's
	// root.
	ms, err := podMounts(pod, c, filepath.Join(e.opts.Dir, "pods", pod.Namespace, name))
	if err != nil {
		return nil, err
	}
	env, msg := (&stepRunner{e: e}).env(ctx, pod, c, ms)
	if msg != "" {
		return nil, fmt.Errorf("CreateContainerConfigError: %s", msg)
	}
	// The container's own arguments, as the chart wrote them (the
	// binary's path, which the upstream charts put first, dropped); the
	// harness's addressing flags follow and so win.
	argv := append(slices.Clone(c.Command), c.Args...)
	if len(argv) > 0 && filepath.Base(argv[0]) == name {
		argv = argv[1:]
	}
	argv = expandArgs(argv, env)
	p := &podProcess{name: name, ns: pod.Namespace, port: c.Ports[0].ContainerPort, env: env}
	need := func(names ...string) ([]string, error) {
		var addrs []string
		for _, n := range names {
			d := k.get(pod.Namespace, n)
			if d == nil {
				return nil, fmt.Errorf("waiting for %s, which it dials", n)
			}
			addrs = append(addrs, d.addr)
		}
		return addrs, nil
	}
	switch name {
	case "argocd-redis":
		p.addr, p.proc, err = e.startRedis(ctx, argv)
	case "argocd-repo-server":
		var deps []string
		if deps, err = need("argocd-redis"); err != nil {
			return nil, err
		}
		var aenv []string
		var state string
		if aenv, state, err = e.argoCDEnv(pod.Namespace); err != nil {
			return nil, err
		}
		p.addr, p.proc, err = e.startRepoServer(ctx, argv, append(aenv, env...), state, deps[0])
	case "argocd-application-controller":
		var deps []string
		if deps, err = need("argocd-redis", "argocd-repo-server"); err != nil {
			return nil, err
		}
		var aenv []string
		if aenv, _, err = e.argoCDEnv(pod.Namespace); err != nil {
			return nil, err
		}
		_, metrics := ports()
		p.addr = fmt.Sprintf("127.0.0.1:%d", metrics)
		level := "info"
		if e.opts.Diagnose {
			// Which object update requeued which app is logged at
			// debug.
			level = "debug"
		}
		// pprof on the metrics port answers when this file says "true"
		// (the bench's PROFILE); it costs nothing until asked.
		on := filepath.Join(e.opts.Dir, "argocd-profiler.enabled")
		if err := os.WriteFile(on, []byte("true"), 0o644); err != nil {
			return nil, err
		}
		aenv = append(aenv, "ARGOCD_ENABLE_PROFILER_FILE_PATH="+on)
		p.proc, err = e.procs.Start("argocd-application-controller", e.bin("argocd-application-controller"), append(argv,
			"--repo-server", deps[1], "--redis", deps[0], "--metrics-port", strconv.Itoa(metrics), "--loglevel", level,
		), append(aenv, env...))
	case "argocd-server":
		var deps []string
		if deps, err = need("argocd-redis", "argocd-repo-server"); err != nil {
			return nil, err
		}
		var aenv []string
		var state string
		if aenv, state, err = e.argoCDEnv(pod.Namespace); err != nil {
			return nil, err
		}
		p.addr, p.proc, err = e.startArgoCDServer(ctx, argv, append(aenv, env...), state, deps[0], deps[1], slices.Contains(env, "ARGOCD_SERVER_INSECURE=true"))
	case "workflow-controller":
		p.addr, p.proc, err = e.startWorkflowController(ctx, pod.Namespace, argv, env)
	default:
		return nil, fmt.Errorf("no process plays %q here", name)
	}
	if err != nil {
		// A container that never became ready is killed before the
		// next attempt.
		if p.proc != nil {
			p.proc.Stop(5 * time.Second)
		}
		return nil, err
	}
	return p, nil
}

// route sends port-forwards to pod's container port, and the Services
// selecting pod, to the process.
func (k *processKubelet) route(ctx context.Context, pod *corev1.Pod, p *podProcess) error {
	e := k.e
	k.mu.Lock()
	var forwards []any
	for _, key := range slices.Sorted(func(yield func(string) bool) {
		for key := range k.running {
			if !yield(key) {
				return
			}
		}
	}) {
		q := k.running[key]
		if q.ns != pod.Namespace {
			continue
		}
		host, port, err := net.SplitHostPort(q.addr)
		if err != nil {
			k.mu.Unlock()
			return err
		}
		n, _ := strconv.Atoi(port)
		forwards = append(forwards, map[string]any{"ports": []any{q.port}, "target": map[string]any{"address": host, "port": n}})
	}
	k.mu.Unlock()
	pf := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "ClusterPortForward",
		"metadata": map[string]any{"name": "e2e-processes-" + pod.Namespace},
		"spec":     map[string]any{"selector": map[string]any{"matchNamespaces": []any{pod.Namespace}}, "forwards": forwards},
	}}
	ri := e.Dynamic.Resource(clusterPortForwardGVR)
	if _, err := ri.Create(ctx, pf, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		cur, err := ri.Get(ctx, pf.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		pf.SetResourceVersion(cur.GetResourceVersion())
		if _, err := ri.Update(ctx, pf, metav1.UpdateOptions{}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	svcs, err := e.Kube.CoreV1().Services(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, s := range svcs.Items {
		if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			continue
		}
		for _, sp := range s.Spec.Ports {
			for _, host := range []string{s.Name, s.Name + "." + s.Namespace, s.Name + "." + s.Namespace + ".svc", s.Name + "." + s.Namespace + ".svc.cluster.local"} {
				e.net.service(net.JoinHostPort(host, strconv.Itoa(int(sp.Port))), p.addr)
			}
		}
	}
	return nil
}

// startWorkflowController starts the real workflow controller with the
// container's arguments and environment, and a kubeconfig whose context
// is its namespace; its health endpoint is fixed at :6060.
func (e *Env) startWorkflowController(ctx context.Context, ns string, args, env []string) (string, *proc, error) {
	kubeconfig, err := e.kubeconfigFile(ns)
	if err != nil {
		return "", nil, err
	}
	p, err := e.procs.Start("workflow-controller", filepath.Join(e.opts.Bin, "workflow-controller"), append(slices.Clone(args), "--kubeconfig", kubeconfig), env)
	if err != nil {
		return "", nil, err
	}
	return "127.0.0.1:6060", p, waitFor(ctx, p, "workflow-controller", 90*time.Second, httpCheck(&http.Client{Timeout: 2 * time.Second}, "http://127.0.0.1:6060/healthz"))
}

// expandArgs expands $(VAR) in args from env, as the kubelet does
// (an unknown variable stays as written; $$ is a literal $).
func expandArgs(args, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out := make([]string, len(args))
	for i, a := range args {
		var b strings.Builder
		for j := 0; j < len(a); j++ {
			switch {
			case strings.HasPrefix(a[j:], "$$"):
				b.WriteByte('$')
				j++
			case strings.HasPrefix(a[j:], "$("):
				if end := strings.IndexByte(a[j:], ')'); end > 0 {
					if v, ok := vars[a[j+2:j+end]]; ok {
						b.WriteString(v)
						j += end
						continue
					}
				}
				b.WriteByte(a[j])
			default:
				b.WriteByte(a[j])
			}
		}
		out[i] = b.String()
	}
	return out
}

// runRedisSecretInit does what the argo-cd chart's redis-secret-init
// Job does, with the real CLI of the multi-call binary: argocd admin
// redis-initial-password, as the pod's ServiceAccount (impersonated by
// the admin, so the chart's Role is what it may do), in the pod's
// namespace. It creates the argocd-redis Secret the other pods read their
// REDIS_PASSWORD from.
func (k *processKubelet) runRedisSecretInit(ctx context.Context, pod *corev1.Pod) error {
	e := k.e
	c := &pod.Spec.Containers[0]
	argv := append(slices.Clone(c.Command), c.Args...)
	if len(argv) == 0 || filepath.Base(argv[0]) != "argocd" {
		return fmt.Errorf("pod %s runs %q, not the argocd CLI", pod.Name, argv)
	}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	dir := filepath.Join(e.opts.Dir, "pods", pod.Namespace, "argocd-redis-secret-init")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := strings.Replace(string(e.kubeconfig(pod.Namespace)), "    token: ", fmt.Sprintf("    as: system:serviceaccount:%s:%s\n    token: ", pod.Namespace, sa), 1)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, e.bin("argocd"), append(argv[1:], "--kubeconfig", kubeconfig, "--namespace", pod.Namespace)...)
	cmd.Env = []string{"HOME=" + dir, "PATH=" + e.ToolPath()}
	out, err := cmd.CombinedOutput()
	if err := os.WriteFile(filepath.Join(e.opts.Dir, "logs", "argocd-redis-secret-init.log"), out, 0o644); err != nil {
		e.logf("process kubelet: %v", err)
	}
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
