package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"
)

// Labels and annotations Argo Workflows puts on step pods and task
// results (workflow/common).
const (
	labelWorkflow         = "workflows.argoproj.io/workflow"
	labelOutputsCompleted = "workflows.argoproj.io/report-outputs-completed"
	annotationNodeID      = "workflows.argoproj.io/node-id"
	envTemplate           = "ARGO_TEMPLATE"
	envIncludeScriptOut   = "ARGO_INCLUDE_SCRIPT_OUTPUT"
)

var taskResultGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "workflowtaskresults"}

// stepRunner is the container runtime of the workflow step pods: kwok
// starts them (Running, Ready) but runs nothing, so the runner does what
// the pod's containers would. For a script template it runs the script
// with the real bash, the real argocd CLI and the pod's own environment
// (values, Secret and field references resolved as the kubelet would,
// emptyDir mounts mapped to directories); for a resource template it
// does what argoexec does, with the pod's ServiceAccount. Then it writes
// what argoexec's wait container writes (a WorkflowTaskResult with the
// output parameters, as the pod's ServiceAccount, so platc's RBAC is what
// allows it) and what the kubelet writes (the pod's terminal phase and
// each container's exit code). The controller learns a step's result
// exactly as it does in a cluster.
type stepRunner struct {
	e   *Env
	ns  string
	dir string // one directory per pod: mounts and logs

	mu      sync.Mutex
	started map[string]context.CancelFunc // pod UID → cancel
	// signals carries the signals the workflow controller sends a pod's
	// main container (argoexec kill, seen in the API server's audit
	// log), by pod name.
	signals map[string]chan syscall.Signal
	// Steps counts the pods run, for reports.
	Steps int
	// traceparents counts the pods run with each TRACEPARENT in their
	// main container's environment.
	traceparents map[string]int
	// Problems lists what the runtime could not do (a denied task
	// result, an unsupported template): each would hang or fail the
	// step in a cluster too, so scenarios fail on it.
	Problems []string
}

func (e *Env) startStepRunner(ctx context.Context, ns string) (*stepRunner, error) {
	r := &stepRunner{e: e, ns: ns, dir: filepath.Join(e.opts.Dir, "steps"), started: map[string]context.CancelFunc{}, signals: map[string]chan syscall.Signal{}, traceparents: map[string]int{}}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	f := informers.NewSharedInformerFactoryWithOptions(e.Kube, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = labelWorkflow }))
	inf := f.Core().V1().Pods().Informer()
	// A pod being deleted is the kubelet's to stop: its containers get
	// SIGTERM, then SIGKILL after the grace period (runCommand).
	stop := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok {
			r.mu.Lock()
			if cancel := r.started[string(p.UID)]; cancel != nil {
				cancel()
			}
			r.mu.Unlock()
		}
	}
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { r.consider(ctx, obj) },
		UpdateFunc: func(_, obj any) {
			if p, ok := obj.(*corev1.Pod); ok && p.DeletionTimestamp != nil {
				stop(obj)
			}
			r.consider(ctx, obj)
		},
		DeleteFunc: stop,
	})
	if err != nil {
		return nil, err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil, errors.New("step runner: pod informer did not sync")
	}
	go r.followSignals(ctx, e.auditLog())
	return r, nil
}

// followSignals reads the API server's audit log for the workflow
// controller's pods/exec requests that signal a step's main container
// (argoexec kill SIG 1, or sh -c "kill -SIG 1"; workflow/signal) and
// delivers each signal to that pod's script, as argoexec's emissary
// would forward it. kwok answers the exec itself (and fails: it has
// nothing to run), which the controller ignores as it would any failed
// signal.
func (r *stepRunner) followSignals(ctx context.Context, path string) {
	var off int64
	var partial []byte
	wait.UntilWithContext(ctx, func(context.Context) {
		f, err := os.Open(path)
		if err != nil {
			return // not written yet: no exec so far
		}
		fi, err := f.Stat()
		if err != nil || fi.Size() < off {
			off = 0 // rotated
		}
		_, _ = f.Seek(off, io.SeekStart)
		b, _ := io.ReadAll(f)
		f.Close()
		off += int64(len(b))
		b = append(partial, b...)
		lines := bytes.Split(b, []byte("\n"))
		partial = append([]byte(nil), lines[len(lines)-1]...)
		for _, l := range lines[:len(lines)-1] {
			pod, sig, ok := execSignal(l, r.ns)
			if !ok {
				continue
			}
			r.mu.Lock()
			ch := r.signals[pod]
			r.mu.Unlock()
			if ch != nil {
				select {
				case ch <- sig:
				default:
				}
			}
		}
	}, 200*time.Millisecond)
}

// execSignal reads one audit event: a pods/exec into a main container
// in ns whose command is a kill, and the signal it sends.
func execSignal(line []byte, ns string) (pod string, sig syscall.Signal, ok bool) {
	var ev struct {
		Stage      string `json:"stage"`
		RequestURI string `json:"requestURI"`
		ObjectRef  struct {
			Namespace, Name, Subresource string
		} `json:"objectRef"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Stage != "RequestReceived" || ev.ObjectRef.Subresource != "exec" || ev.ObjectRef.Namespace != ns {
		return "", 0, false
	}
	u, err := url.Parse(ev.RequestURI)
	if err != nil || u.Query().Get("container") != "main" {
		return "", 0, false
	}
	cmd := u.Query()["command"]
	var n string
	switch {
	case len(cmd) == 4 && filepath.Base(cmd[0]) == "argoexec" && cmd[1] == "kill" && cmd[3] == "1":
		n = cmd[2]
	case len(cmd) == 3 && cmd[1] == "-c" && strings.HasPrefix(cmd[2], "kill -") && strings.HasSuffix(cmd[2], " 1"):
		n = strings.TrimSuffix(strings.TrimPrefix(cmd[2], "kill -"), " 1")
	default:
		return "", 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i <= 0 {
		return "", 0, false
	}
	return ev.ObjectRef.Name, syscall.Signal(i), true
}

func (r *stepRunner) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Problems = append(r.Problems, fmt.Sprintf(format, args...))
}

// consider starts a pod's containers once kwok has made it Running.
func (r *stepRunner) consider(ctx context.Context, obj any) {
	p, ok := obj.(*corev1.Pod)
	if !ok || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return
	}
	for _, c := range p.Status.ContainerStatuses {
		if c.State.Terminated != nil {
			return
		}
	}
	r.mu.Lock()
	if _, seen := r.started[string(p.UID)]; seen {
		r.mu.Unlock()
		return
	}
	cctx, cancel := context.WithCancel(ctx)
	r.started[string(p.UID)] = cancel
	r.signals[p.Name] = make(chan syscall.Signal, 4)
	r.Steps++
	r.mu.Unlock()
	go r.run(cctx, p.DeepCopy())
}

// outcome is what a pod's main container ended with.
type outcome struct {
	exitCode  int32
	reason    string // Completed, Error, DeadlineExceeded
	message   string
	stdout    string
	outputs   *wfv1.Outputs
	deadline  bool
	configErr string // the container could not start (a missing Secret)
	initErr   error  // the wait container could not create the task result
}

func (r *stepRunner) run(ctx context.Context, pod *corev1.Pod) {
	tmpl, err := podTemplate(pod)
	if err != nil {
		r.problem("pod %s: %v", pod.Name, err)
		r.finish(ctx, pod, nil, outcome{exitCode: 64, reason: "Error", message: err.Error()})
		return
	}
	dir := filepath.Join(r.dir, pod.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.problem("pod %s: %v", pod.Name, err)
		return
	}
	// argoexec's wait container first writes an empty task result,
	// marked incomplete, and completes it when the main container ends.
	initErr := r.initResult(context.Background(), pod)
	// activeDeadlineSeconds is the kubelet's to enforce.
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil {
		start := time.Now()
		if pod.Status.StartTime != nil {
			start = pod.Status.StartTime.Time
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, start.Add(time.Duration(*d)*time.Second))
		defer cancel()
	}
	var o outcome
	switch {
	case tmpl.Script != nil:
		o = r.runScript(ctx, pod, tmpl, dir)
	case tmpl.Container != nil:
		o = r.runContainer(ctx, pod, tmpl, dir)
	case tmpl.Resource != nil:
		o = r.runResource(ctx, pod, tmpl)
	default:
		msg := fmt.Sprintf("template %q is neither a script, a container nor a resource template; the e2e runtime runs only those (all platc emits)", tmpl.Name)
		r.problem("pod %s: %s", pod.Name, msg)
		o = outcome{exitCode: 64, reason: "Error", message: msg}
	}
	if o.configErr != "" {
		r.containerConfigError(pod, o.configErr)
		return
	}
	o.initErr = initErr
	r.finish(ctx, pod, tmpl, o)
}

// podTemplate is the template the controller handed the pod's argoexec,
// from the ARGO_TEMPLATE variable of its init or main container.
func podTemplate(pod *corev1.Pod) (*wfv1.Template, error) {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			for _, ev := range c.Env {
				if ev.Name == envTemplate {
					var t wfv1.Template
					if err := json.Unmarshal([]byte(ev.Value), &t); err != nil {
						return nil, fmt.Errorf("%s: %w (an offloaded template is not supported here)", envTemplate, err)
					}
					return &t, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("no %s in the pod", envTemplate)
}

func container(pod *corev1.Pod, name string) *corev1.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	return nil
}

// mounts maps a container's emptyDir mounts to directories under dir.
type mounts []struct{ at, host string }

func podMounts(pod *corev1.Pod, c *corev1.Container, dir string) (mounts, error) {
	var ms mounts
	for _, vm := range c.VolumeMounts {
		host := filepath.Join(dir, "volumes", vm.Name, vm.SubPath)
		if err := os.MkdirAll(host, 0o755); err != nil {
			return nil, err
		}
		// The kubelet makes an emptyDir world-writable: the one place a
		// container with a read-only root may write.
		if err := os.Chmod(host, 0o777); err != nil {
			return nil, err
		}
		ms = append(ms, struct{ at, host string }{strings.TrimRight(vm.MountPath, "/"), host})
	}
	return ms, nil
}

// path is where a container path lives on this machine: under the
// longest mount that holds it; a path outside every mount is returned
// as it is.
func (ms mounts) path(p string) string {
	best := -1
	for i, m := range ms {
		if (p == m.at || strings.HasPrefix(p, m.at+"/")) && (best < 0 || len(m.at) > len(ms[best].at)) {
			best = i
		}
	}
	if best < 0 {
		return p
	}
	return ms[best].host + strings.TrimPrefix(p, ms[best].at)
}

// rootPath is where a container directory lives: in its mount, or in
// the pod's stand-in root file system under dir, made as root and so
// not writable by the step's user (see docs/e2e.md on what that does
// and does not enforce of readOnlyRootFilesystem).
func (ms mounts) rootPath(p, dir string) (string, error) {
	if h := ms.path(p); h != p {
		return h, nil
	}
	h := filepath.Join(dir, "rootfs", p)
	return h, os.MkdirAll(h, 0o755)
}

// env resolves a container's environment as the kubelet does. A missing
// Secret or key is the kubelet's CreateContainerConfigError.
func (r *stepRunner) env(ctx context.Context, pod *corev1.Pod, c *corev1.Container, ms mounts) ([]string, string) {
	var out []string
	for _, ev := range c.Env {
		v := ev.Value
		switch {
		case ev.ValueFrom == nil:
		case ev.ValueFrom.SecretKeyRef != nil:
			ref := ev.ValueFrom.SecretKeyRef
			s, err := r.e.Kube.CoreV1().Secrets(pod.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			if err != nil || s.Data[ref.Key] == nil {
				if ref.Optional != nil && *ref.Optional {
					continue
				}
				if err == nil {
					err = fmt.Errorf("couldn't find key %s in Secret %s/%s", ref.Key, pod.Namespace, ref.Name)
				}
				return nil, err.Error()
			}
			v = string(s.Data[ref.Key])
		case ev.ValueFrom.ConfigMapKeyRef != nil:
			ref := ev.ValueFrom.ConfigMapKeyRef
			cm, err := r.e.Kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			val, ok := "", false
			if err == nil {
				val, ok = cm.Data[ref.Key]
			}
			if !ok {
				if ref.Optional != nil && *ref.Optional {
					continue
				}
				return nil, fmt.Sprintf("couldn't find key %s in ConfigMap %s/%s", ref.Key, pod.Namespace, ref.Name)
			}
			v = val
		case ev.ValueFrom.FieldRef != nil:
			v = fieldValue(pod, ev.ValueFrom.FieldRef.FieldPath)
		default:
			continue
		}
		if strings.HasPrefix(v, "/") {
			v = ms.path(v)
		}
		out = append(out, ev.Name+"="+v)
	}
	return out, ""
}

func fieldValue(pod *corev1.Pod, path string) string {
	switch path {
	case "metadata.name":
		return pod.Name
	case "metadata.namespace":
		return pod.Namespace
	case "metadata.uid":
		return string(pod.UID)
	case "spec.nodeName":
		return pod.Spec.NodeName
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName
	case "status.podIP":
		return pod.Status.PodIP
	case "status.hostIP":
		return pod.Status.HostIP
	}
	for _, m := range []struct {
		prefix string
		from   map[string]string
	}{{"metadata.annotations['", pod.Annotations}, {"metadata.labels['", pod.Labels}} {
		if strings.HasPrefix(path, m.prefix) && strings.HasSuffix(path, "']") {
			return m.from[strings.TrimSuffix(strings.TrimPrefix(path, m.prefix), "']")]
		}
	}
	return ""
}

// runScript runs a script template's main container: argoexec stages
// the source as a file, which the command reads.
func (r *stepRunner) runScript(ctx context.Context, pod *corev1.Pod, tmpl *wfv1.Template, logDir string) outcome {
	return r.runMain(ctx, pod, tmpl, logDir, func(dir string) ([]string, error) {
		script := filepath.Join(dir, "staging", "script")
		if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(script, []byte(tmpl.Script.Source), 0o644); err != nil {
			return nil, err
		}
		command := tmpl.Script.Command
		if len(command) == 0 {
			command = []string{"sh"}
		}
		return append(append(append([]string{}, command...), tmpl.Script.Args...), script), nil
	})
}

// runContainer runs a container template's main container: its command
// and args, from the image (the controller requires a command here:
// there is no image ENTRYPOINT to fall back on in this runtime).
func (r *stepRunner) runContainer(ctx context.Context, pod *corev1.Pod, tmpl *wfv1.Template, logDir string) outcome {
	return r.runMain(ctx, pod, tmpl, logDir, func(string) ([]string, error) {
		if len(tmpl.Container.Command) == 0 {
			return nil, fmt.Errorf("template %q has no command; the e2e runtime does not read image entrypoints", tmpl.Name)
		}
		return append(append([]string{}, tmpl.Container.Command...), tmpl.Container.Args...), nil
	})
}

// runMain runs the pod's main container as argv (its first element looked
// up in the image) with the pod's user, environment and mounts.
func (r *stepRunner) runMain(ctx context.Context, pod *corev1.Pod, tmpl *wfv1.Template, logDir string, argv func(dir string) ([]string, error)) outcome {
	main := container(pod, "main")
	if main == nil {
		return outcome{exitCode: 64, reason: "Error", message: "no main container"}
	}
	cred, cfgErr := r.e.podUser(pod, main)
	if cfgErr != "" {
		return outcome{configErr: cfgErr}
	}
	// The pod's files live on the node directory, which the step's user
	// can enter: its emptyDirs, the staged script, its root file system.
	dir := filepath.Join(r.e.node, "pods", pod.Name)
	ms, err := podMounts(pod, main, dir)
	if err != nil {
		return outcome{exitCode: 64, reason: "Error", message: err.Error()}
	}
	env, cfgErr := r.env(ctx, pod, main, ms)
	if cfgErr != "" {
		return outcome{configErr: cfgErr}
	}
	command, err := argv(dir)
	if err != nil {
		return outcome{exitCode: 64, reason: "Error", message: err.Error()}
	}
	bin, err := lookPathIn(command[0], r.e.imageBin)
	if err != nil {
		return outcome{exitCode: 127, reason: "Error", message: err.Error()}
	}
	cmd := exec.Command(bin, command[1:]...)
	wd := main.WorkingDir
	if wd == "" {
		wd = r.e.image.Workdir
	}
	if cmd.Dir, err = ms.rootPath(wd, dir); err != nil {
		return outcome{exitCode: 64, reason: "Error", message: err.Error()}
	}
	// Only the image's binaries, and the simulated network every process
	// in the cluster is on (network.go). No trust store: a pod trusts
	// only what its image ships, so the environment's CA is not given.
	cmd.Env = append([]string{
		"PATH=" + r.e.imageBin,
		"ALL_PROXY=" + r.e.net.SOCKSURL(),
		"HOME=" + cmd.Dir,
	}, env...)
	// Scripts that keep scratch files under /tmp (platc's prelude reads
	// PLATC_STEP_DIR, default /tmp) find the pod's /tmp mount.
	if !hasEnv(env, "PLATC_STEP_DIR") {
		cmd.Env = append(cmd.Env, "PLATC_STEP_DIR="+ms.path("/tmp"))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	r.mu.Lock()
	sig := r.signals[pod.Name]
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TRACEPARENT="); ok {
			r.traceparents[v]++
		}
	}
	r.mu.Unlock()
	o, ran := runCommand(ctx, cmd, logDir, sig, gracePeriod(pod))
	if !ran || o.deadline {
		return o
	}
	outputs, err := saveOutputs(tmpl, ms, o.stdout, includeScriptOutput(pod))
	if err != nil {
		// argoexec's wait container fails, which errors the node.
		o.message = err.Error()
		return o
	}
	o.outputs = outputs
	return o
}

// gracePeriod is the time between SIGTERM and SIGKILL when the kubelet
// stops the pod's containers.
func gracePeriod(pod *corev1.Pod) time.Duration {
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil {
		return time.Duration(*g) * time.Second
	}
	return 30 * time.Second // the API server's default
}

// podUser is who the main container runs as: its securityContext, then
// the pod's, then the image's USER; never root when runAsNonRoot says
// so (the kubelet refuses to start it).
func (e *Env) podUser(pod *corev1.Pod, c *corev1.Container) (*syscall.Credential, string) {
	uid, gid := e.image.UID, e.image.GID
	nonRoot := false
	if psc := pod.Spec.SecurityContext; psc != nil {
		if psc.RunAsUser != nil {
			uid = *psc.RunAsUser
		}
		if psc.RunAsGroup != nil {
			gid = *psc.RunAsGroup
		}
		nonRoot = psc.RunAsNonRoot != nil && *psc.RunAsNonRoot
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = *sc.RunAsGroup
		}
		if sc.RunAsNonRoot != nil {
			nonRoot = *sc.RunAsNonRoot
		}
	}
	if nonRoot && uid == 0 {
		return nil, "container has runAsNonRoot and image will run as root"
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, ""
}

// runCommand runs a step's command as the pod's main container would,
// its output also logged to logDir/log, until it ends. The kubelet stops
// it when ctx ends (the pod's deadline, or the pod deleted): SIGTERM to
// its process group, SIGKILL after grace. A signal on sig is the
// workflow controller's (argoexec kill), delivered as it is. ran is
// false when it could not start.
func runCommand(ctx context.Context, cmd *exec.Cmd, logDir string, sig <-chan syscall.Signal, grace time.Duration) (o outcome, ran bool) {
	var stdout, stderr bytes.Buffer
	logf, err := os.Create(filepath.Join(logDir, "log"))
	if err != nil {
		return outcome{exitCode: 64, reason: "Error", message: err.Error()}, false
	}
	defer logf.Close()
	cmd.Stdout = &teeWriter{&stdout, logf}
	cmd.Stderr = &teeWriter{&stderr, logf}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return outcome{exitCode: 127, reason: "Error", message: err.Error()}, false
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	deadline := false
	stopping := ctx.Done()
	var kill <-chan time.Time
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case s := <-sig:
			_ = syscall.Kill(-cmd.Process.Pid, s)
		case <-stopping:
			stopping = nil
			deadline = errors.Is(ctx.Err(), context.DeadlineExceeded)
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			kill = time.After(grace)
		case <-kill:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	o = outcome{stdout: stdout.String()}
	if waitErr != nil {
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			o.exitCode = int32(ee.ExitCode())
			// A container killed by a signal exits 128+n.
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				o.exitCode = 128 + int32(ws.Signal())
			}
		} else {
			o.exitCode = 1
		}
	}
	o.reason = "Completed"
	if o.exitCode != 0 {
		o.reason = "Error"
	}
	o.deadline = deadline
	return o, true
}

func hasEnv(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

func includeScriptOutput(pod *corev1.Pod) bool {
	for _, c := range pod.Spec.Containers {
		for _, ev := range c.Env {
			if ev.Name == envIncludeScriptOut {
				return ev.Value == "true"
			}
		}
	}
	return false
}

// saveOutputs does what argoexec's SaveParameters and CaptureScriptResult
// do: each output parameter from its file (one trailing newline off, the
// default when the file is missing), and the script's stdout as result.
func saveOutputs(tmpl *wfv1.Template, ms mounts, stdout string, includeResult bool) (*wfv1.Outputs, error) {
	out := tmpl.Outputs.DeepCopy()
	for i, p := range out.Parameters {
		if p.ValueFrom == nil || p.ValueFrom.Path == "" {
			continue
		}
		b, err := os.ReadFile(ms.path(p.ValueFrom.Path))
		if err != nil {
			if p.ValueFrom.Default != nil {
				out.Parameters[i].Value = p.ValueFrom.Default
				continue
			}
			return nil, fmt.Errorf("output parameter %s: %v", p.Name, err)
		}
		out.Parameters[i].Value = wfv1.AnyStringPtr(strings.TrimSuffix(string(b), "\n"))
	}
	if includeResult && tmpl.Script != nil {
		res := strings.TrimSuffix(stdout, "\n")
		if len(res) > 256<<10 {
			res = res[len(res)-256<<10:]
		}
		out.Result = &res
	}
	return out, nil
}

type teeWriter struct {
	a, b interface{ Write([]byte) (int, error) }
}

func (t *teeWriter) Write(p []byte) (int, error) {
	_, _ = t.b.Write(p)
	return t.a.Write(p)
}

func lookPathIn(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: executable file not found in the image's PATH", name)
}

// asServiceAccount is a dynamic client that authenticates as the pod's
// ServiceAccount (impersonated by the admin), so what the pod does is
// allowed or denied by the RBAC platc generated.
func (r *stepRunner) asServiceAccount(pod *corev1.Pod) (dynamic.Interface, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	cfg := rest.CopyConfig(r.e.rest)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + pod.Namespace + ":" + sa,
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + pod.Namespace, "system:authenticated"},
	}
	return dynamic.NewForConfig(cfg)
}

// runResource does what argoexec does for a resource template: the
// action on the manifest, as the pod's ServiceAccount.
func (r *stepRunner) runResource(ctx context.Context, pod *corev1.Pod, tmpl *wfv1.Template) outcome {
	fail := func(msg string) outcome { return outcome{exitCode: 1, reason: "Error", message: msg} }
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(tmpl.Resource.Manifest), &obj); err != nil {
		return fail("manifest: " + err.Error())
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GetNamespace() == "" {
		u.SetNamespace(pod.Namespace)
	}
	gvr, err := r.e.resourceFor(u)
	if err != nil {
		return fail(err.Error())
	}
	dc, err := r.asServiceAccount(pod)
	if err != nil {
		return fail(err.Error())
	}
	ri := dc.Resource(gvr.GroupVersionResource).Namespace(u.GetNamespace())
	if !gvr.namespaced {
		ri = dc.Resource(gvr.GroupVersionResource)
	}
	var created *unstructured.Unstructured
	switch tmpl.Resource.Action {
	case "create":
		created, err = ri.Create(ctx, u, metav1.CreateOptions{})
	case "apply":
		data, _ := json.Marshal(u.Object)
		force := true
		created, err = ri.Patch(ctx, u.GetName(), "application/apply-patch+yaml", data, metav1.PatchOptions{FieldManager: "argoexec", Force: &force})
	case "delete":
		err = ri.Delete(ctx, u.GetName(), metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) && strings.Contains(strings.Join(tmpl.Resource.Flags, " "), "--ignore-not-found") {
			err = nil
		}
	case "get":
		created, err = ri.Get(ctx, u.GetName(), metav1.GetOptions{})
	default:
		return fail(fmt.Sprintf("resource action %q is not supported by the e2e runtime", tmpl.Resource.Action))
	}
	if err != nil {
		return fail(err.Error())
	}
	if created != nil && (tmpl.Resource.SuccessCondition != "" || tmpl.Resource.FailureCondition != "") {
		if err := waitConditions(ctx, ri, created.GetName(), tmpl.Resource.SuccessCondition, tmpl.Resource.FailureCondition); err != nil {
			return fail(err.Error())
		}
	}
	return outcome{reason: "Completed", outputs: tmpl.Outputs.DeepCopy()}
}

// waitConditions polls an object until its success condition holds or
// its failure condition does, with argoexec's semantics: each condition
// is a label selector whose keys are gjson paths into the object.
func waitConditions(ctx context.Context, ri dynamic.ResourceInterface, name, success, failure string) error {
	parse := func(s string) (labels.Requirements, error) {
		if s == "" {
			return nil, nil
		}
		sel, err := labels.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("condition %q: %w", s, err)
		}
		reqs, _ := sel.Requirements()
		return reqs, nil
	}
	okReqs, err := parse(success)
	if err != nil {
		return err
	}
	failReqs, err := parse(failure)
	if err != nil {
		return err
	}
	// Until the pod's deadline or deletion ends ctx, as argoexec waits.
	return wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		obj, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		b, _ := json.Marshal(obj.Object)
		ls := gjsonLabels(b)
		for _, r := range failReqs {
			if r.Matches(ls) {
				return false, fmt.Errorf("failure condition '%s' evaluated true", r.String())
			}
		}
		for _, r := range okReqs {
			if !r.Matches(ls) {
				return false, nil
			}
		}
		return true, nil
	})
}

// gjsonLabels lets a label selector read an object through gjson paths,
// as argoexec's resource conditions do.
type gjsonLabels []byte

func (g gjsonLabels) Has(key string) bool   { return gjson.GetBytes(g, key).Exists() }
func (g gjsonLabels) Get(key string) string { return gjson.GetBytes(g, key).String() }

// finish reports a pod's outcome: the task result (argoexec's wait
// container, as the pod's ServiceAccount), then the pod status (the
// kubelet).
func (r *stepRunner) finish(ctx context.Context, pod *corev1.Pod, tmpl *wfv1.Template, o outcome) {
	if ctx.Err() != nil && !o.deadline {
		return // the pod went away
	}
	bg := context.Background()
	waitExit := int32(0)
	if o.initErr != nil {
		r.problem("pod %s: creating its task result as ServiceAccount %s: %v", pod.Name, pod.Spec.ServiceAccountName, o.initErr)
		waitExit = 1
	}
	if o.outputs != nil || tmpl != nil {
		if err := r.completeResult(bg, pod, o.outputs); err != nil {
			r.problem("pod %s: patching its task result as ServiceAccount %s: %v", pod.Name, pod.Spec.ServiceAccountName, err)
			waitExit = 1
		}
	}
	now := metav1.Now()
	st := pod.Status.DeepCopy()
	term := func(code int32, reason, msg string) corev1.ContainerState {
		started := now
		if pod.Status.StartTime != nil {
			started = *pod.Status.StartTime
		}
		return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: msg, StartedAt: started, FinishedAt: now}}
	}
	for i := range st.ContainerStatuses {
		c := &st.ContainerStatuses[i]
		c.Ready = false
		c.Started = new(bool)
		switch c.Name {
		case "main":
			c.State = term(o.exitCode, o.reason, "")
		case "wait":
			reason := "Completed"
			if waitExit != 0 || o.message != "" {
				waitExit, reason = 1, "Error"
			}
			c.State = term(waitExit, reason, o.message)
		default:
			c.State = term(0, "Completed", "")
		}
	}
	st.Phase = corev1.PodSucceeded
	if o.exitCode != 0 || waitExit != 0 || o.message != "" {
		st.Phase = corev1.PodFailed
	}
	if o.deadline {
		st.Phase, st.Reason, st.Message = corev1.PodFailed, "DeadlineExceeded", "Pod was active on the node longer than the specified deadline"
	}
	for i := range st.Conditions {
		if st.Conditions[i].Type == corev1.PodReady || st.Conditions[i].Type == corev1.ContainersReady {
			st.Conditions[i].Status = corev1.ConditionFalse
			st.Conditions[i].LastTransitionTime = now
		}
	}
	r.updateStatus(bg, pod, st)
}

// podStatusBackoff spaces the retries of a pod status write (about 4s in
// all, as the kubelet's own status manager retries on its next sync).
var podStatusBackoff = wait.Backoff{Steps: 10, Duration: 200 * time.Millisecond, Factor: 1.2, Jitter: 0.1}

// updateStatus writes a pod's status as the kubelet would. A pod deleted
// meanwhile is no error; a write the API server refuses, or one still
// conflicting after every retry, is a problem of the run.
func (r *stepRunner) updateStatus(ctx context.Context, pod *corev1.Pod, st *corev1.PodStatus) {
	pods := r.e.Kube.CoreV1().Pods(pod.Namespace)
	var refused error // an update error no retry can cure
	err := retry.OnError(podStatusBackoff, func(err error) bool { return !apierrors.IsNotFound(err) && err != refused }, func() error {
		cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Status = *st
		if _, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
			refused = err
		}
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		r.problem("pod %s: status update: %v", pod.Name, err)
	}
}

// containerConfigError is what the kubelet reports when a container's
// environment cannot be built: the pod stays Pending with the main
// container waiting.
func (r *stepRunner) containerConfigError(pod *corev1.Pod, msg string) {
	st := pod.Status.DeepCopy()
	st.Phase = corev1.PodPending
	for i := range st.ContainerStatuses {
		if st.ContainerStatuses[i].Name == "main" {
			st.ContainerStatuses[i].Ready = false
			st.ContainerStatuses[i].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: msg}}
		}
	}
	r.updateStatus(context.Background(), pod, st)
}

// The WorkflowTaskResult follows argoexec v3.7's protocol
// (workflow/executor/taskresult.go, cmd/argoexec/commands/wait.go), as
// the pod's ServiceAccount: InitializeOutput creates it empty, named
// after the node, owned by the workflow and labelled
// report-outputs-completed=false; ReportOutputs merge-patches the
// outputs in; FinalizeOutput merge-patches the label to true. So a Role
// without `patch` on workflowtaskresults fails here as in a cluster.

// initResult is InitializeOutput.
func (r *stepRunner) initResult(ctx context.Context, pod *corev1.Pod) error {
	nodeID, ri, err := r.taskResults(pod)
	if err != nil {
		return err
	}
	wf := pod.Labels[labelWorkflow]
	tr := &wfv1.WorkflowTaskResult{
		TypeMeta: metav1.TypeMeta{APIVersion: "argoproj.io/v1alpha1", Kind: "WorkflowTaskResult"},
		ObjectMeta: metav1.ObjectMeta{
			Name: nodeID, Namespace: pod.Namespace,
			Labels: map[string]string{labelWorkflow: wf, labelOutputsCompleted: "false"},
		},
	}
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Workflow" {
			tr.OwnerReferences = []metav1.OwnerReference{{APIVersion: "argoproj.io/v1alpha1", Kind: "Workflow", Name: o.Name, UID: o.UID}}
		}
	}
	obj, err := toUnstructured(tr)
	if err != nil {
		return err
	}
	_, err = ri.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// upsertTaskResult: a retried wait container patches instead.
		_, err = ri.Patch(ctx, nodeID, types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
	}
	return err
}

// completeResult is ReportOutputs then FinalizeOutput: two merge
// patches, as argoexec sends them.
func (r *stepRunner) completeResult(ctx context.Context, pod *corev1.Pod, outputs *wfv1.Outputs) error {
	nodeID, ri, err := r.taskResults(pod)
	if err != nil {
		return err
	}
	var errs []error
	if outputs != nil {
		patch, _ := json.Marshal(&wfv1.WorkflowTaskResult{NodeResult: wfv1.NodeResult{Outputs: outputs}})
		if _, err := ri.Patch(ctx, nodeID, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("reporting outputs: %w", err))
		}
	}
	patch, _ := json.Marshal(&wfv1.WorkflowTaskResult{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelOutputsCompleted: "true"}}})
	if _, err := ri.Patch(ctx, nodeID, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		errs = append(errs, fmt.Errorf("finalizing: %w", err))
	}
	return errors.Join(errs...)
}

func (r *stepRunner) taskResults(pod *corev1.Pod) (string, dynamic.ResourceInterface, error) {
	nodeID := pod.Annotations[annotationNodeID]
	if nodeID == "" {
		nodeID = pod.Name
	}
	dc, err := r.asServiceAccount(pod)
	if err != nil {
		return "", nil, err
	}
	return nodeID, dc.Resource(taskResultGVR).Namespace(pod.Namespace), nil
}

func toUnstructured(v any) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

func (g gjsonLabels) Lookup(key string) (string, bool) {
	r := gjson.GetBytes(g, key)
	return r.String(), r.Exists()
}

// Traceparents are the TRACEPARENT values the pods ran with, and how
// many pods ran with each.
func (r *stepRunner) Traceparents() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.traceparents)
}
