package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func readDockerfile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The step image is read from the Dockerfile, and a tool the Dockerfile
// does not install is not on a step's PATH.
func TestStepImageFromDockerfile(t *testing.T) {
	df := readDockerfile(t)
	img, err := readStepImage(df)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bash", "coreutils", "jq"} {
		if !slices.Contains(img.Packages, p) {
			t.Errorf("packages %v lack %s", img.Packages, p)
		}
	}
	for _, b := range []string{"argocd", "kubectl", "helm", "yq", "kubeseal", "argo", "platc"} {
		if !slices.Contains(img.Installed, b) {
			t.Errorf("installed %v lack %s", img.Installed, b)
		}
	}
	if img.UID != 65532 || img.GID != 65532 || img.Workdir != "/home/platc" {
		t.Errorf("user %d:%d, workdir %q", img.UID, img.GID, img.Workdir)
	}

	// Built against a stand-in for the environment's binaries.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "argocd"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// platc comes from the build under test, not from bin.
	platc := filepath.Join(t.TempDir(), "platc-under-test")
	if err := os.WriteFile(platc, []byte("#!/bin/sh\necho under-test\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	build := func(df string) string {
		img, err := readStepImage(df)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "bin")
		if _, err := img.build(dir, bin, platc); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := build(df)
	if b, err := os.ReadFile(filepath.Join(dir, "platc")); err != nil || !strings.Contains(string(b), "under-test") {
		t.Errorf("the step image's platc is not the build under test: %q %v", b, err)
	}
	if _, err := img.build(filepath.Join(t.TempDir(), "bin"), bin, ""); err == nil {
		t.Error("a step image without its platc was built")
	}
	for _, tool := range []string{"bash", "jq", "timeout", "awk", "grep", "sed", "argocd", "platc"} {
		if _, err := lookPathIn(tool, dir); err != nil {
			t.Errorf("%s is not in the step image: %v", tool, err)
		}
	}
	for _, tool := range []string{"curl", "python3-not-a-tool", "etcd", "redis-server", "kwok"} {
		if _, err := lookPathIn(tool, dir); err == nil {
			t.Errorf("%s is in the step image, which does not install it", tool)
		}
	}
	// The same Dockerfile without jq: the step image has none.
	noJQ := strings.Replace(df, " jq ", " ", 1)
	if noJQ == df {
		t.Fatal("the Dockerfile's apt-get line no longer reads ' jq ': update this test")
	}
	if _, err := lookPathIn("jq", build(noJQ)); err == nil {
		t.Error("jq is on the PATH of an image that does not install it")
	}
}

// A step runs as the image's non-root user, may write only to its
// emptyDir, and is stopped the way the kubelet stops a container.
func TestStepProcess(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a step as another user")
	}
	e := &Env{image: &stepImage{UID: 65532, GID: 65532, Workdir: "/home/platc"}}
	cred, msg := e.podUser(&corev1.Pod{}, &corev1.Container{})
	if msg != "" || cred.Uid != 65532 {
		t.Fatalf("user %v %s", cred, msg)
	}
	yes := true
	root := int64(0)
	if _, msg := e.podUser(&corev1.Pod{}, &corev1.Container{SecurityContext: &corev1.SecurityContext{RunAsUser: &root, RunAsNonRoot: &yes}}); msg == "" {
		t.Error("a root container with runAsNonRoot was started")
	}

	// Like the environment's node directory: enterable by the step user.
	node, err := os.MkdirTemp("", "platc-e2e-node-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(node) })
	if err := os.Chmod(node, 0o711); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "tmp"}}}}
	c := &corev1.Container{VolumeMounts: []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}}
	ms, err := podMounts(pod, c, node)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := ms.rootPath("/home/platc", node)
	if err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context, script string, sig <-chan syscall.Signal, grace time.Duration) outcome {
		cmd := exec.Command("/bin/bash", "-c", script)
		cmd.Dir = wd
		cmd.Env = []string{"PATH=/usr/bin:/bin", "T=" + ms.path("/tmp")}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		o, ran := runCommand(ctx, cmd, t.TempDir(), sig, grace)
		if !ran {
			t.Fatalf("did not run: %s", o.message)
		}
		return o
	}
	bg := context.Background()
	if o := run(bg, `[ "$(id -u)" = 65532 ] && touch "$T/ok"`, nil, time.Second); o.exitCode != 0 {
		t.Errorf("writing to the emptyDir as 65532: exit %d", o.exitCode)
	}
	if o := run(bg, `touch x`, nil, time.Second); o.exitCode == 0 {
		t.Error("the step wrote to its root file system")
	}

	// Deadline: SIGTERM, which this script ignores, then SIGKILL after
	// the grace period.
	ctx, cancel := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	o := run(ctx, `trap '' TERM; sleep 20 & wait; sleep 20`, nil, time.Second)
	if el := time.Since(start); o.exitCode != 137 || !o.deadline || el < time.Second || el > 5*time.Second {
		t.Errorf("ignoring SIGTERM: exit %d, deadline %v, after %s; want 137 after the 1s grace", o.exitCode, o.deadline, el)
	}
	// A script that handles SIGTERM gets to run its handler.
	ctx2, cancel2 := context.WithTimeout(bg, 300*time.Millisecond)
	defer cancel2()
	o = run(ctx2, `trap 'echo cleaned up; exit 3' TERM; sleep 20 & wait`, nil, 10*time.Second)
	if o.exitCode != 3 || !strings.Contains(o.stdout, "cleaned up") {
		t.Errorf("SIGTERM handler: exit %d, output %q", o.exitCode, o.stdout)
	}
	// The controller's signal (argoexec kill 15 1) is delivered as sent.
	sig := make(chan syscall.Signal, 1)
	sig <- syscall.SIGTERM
	if o = run(bg, `sleep 20`, sig, time.Minute); o.exitCode != 143 {
		t.Errorf("controller's SIGTERM: exit %d, want 143", o.exitCode)
	}
}

func TestExecSignal(t *testing.T) {
	line := `{"kind":"Event","stage":"RequestReceived","requestURI":"/api/v1/namespaces/wf/pods/deploy-x-1/exec?command=%2Fvar%2Frun%2Fargo%2Fargoexec\u0026command=kill\u0026command=15\u0026command=1\u0026container=main\u0026stderr=true\u0026stdout=true","objectRef":{"resource":"pods","namespace":"wf","name":"deploy-x-1","subresource":"exec"}}`
	pod, sig, ok := execSignal([]byte(line), "wf")
	if !ok || pod != "deploy-x-1" || sig != syscall.SIGTERM {
		t.Errorf("%q %v %v", pod, sig, ok)
	}
	if _, _, ok := execSignal([]byte(strings.Replace(line, "container=main", "container=wait", 1)), "wf"); ok {
		t.Error("a signal to the wait container was taken for the script's")
	}
	if _, _, ok := execSignal([]byte(line), "other"); ok {
		t.Error("another namespace's pod")
	}
	sh := strings.Replace(line, "command=%2Fvar%2Frun%2Fargo%2Fargoexec\\u0026command=kill\\u0026command=15\\u0026command=1", "command=%2Fbin%2Fsh\\u0026command=-c\\u0026command=kill+-9+1", 1)
	if _, sig, ok := execSignal([]byte(sh), "wf"); !ok || sig != syscall.SIGKILL {
		t.Errorf("sh -c kill -9 1: %v %v", sig, ok)
	}
}
