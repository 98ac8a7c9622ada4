package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/platc/platc/emit"
	"github.com/platc/platc/executor"
)

// runBootstrap runs the generated bootstrap, ansible-playbook site.yml of
// platc build's ansible/ directory, laid out and invoked as platc deploy
// does it (executor.WriteBootstrap: the generated tree, the kubeconfig,
// the extra variables, the same arguments and working directory), with
// Debian's ansible-core and kubernetes.core and the environment's Helm
// CLI. The bootstrap host is this machine: it reaches the chart
// repositories through the simulated internet (HTTPS_PROXY) and trusts
// the environment's CA (SSL_CERT_FILE), as a real host trusts the CAs of
// the real repositories; nothing in the cluster is given that trust. Its
// output is logs/ansible-bootstrap.log.
func (pl *Platform) runBootstrap(ctx context.Context) error {
	e := pl.Env
	tree, err := readTree(pl.Generated)
	if err != nil {
		return err
	}
	var files []emit.File
	for _, name := range slices.Sorted(maps.Keys(tree)) {
		files = append(files, emit.File{Path: name, Data: tree[name]})
	}
	dir := filepath.Join(e.opts.Dir, "bootstrap")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	workdir, args, err := executor.WriteBootstrap(dir, files, pl.Program, e.kubeconfig("default"), pl.secretsDir)
	if err != nil {
		return err
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, "tmp"), 0o700); err != nil {
		return err
	}
	bin, err := exec.LookPath("ansible-playbook")
	if err != nil {
		return fmt.Errorf("ansible-playbook: %w (Debian packages ansible and python3-kubernetes)", err)
	}
	logPath := filepath.Join(e.opts.Dir, "logs", "ansible-bootstrap.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = workdir
	// What platc deploy gives ansible-playbook (executor.ansible), with
	// the bootstrap host's HOME, network and trust.
	cmd.Env = []string{
		"PATH=" + e.ToolPath(), "LC_ALL=C.UTF-8",
		"HOME=" + home, "TMPDIR=" + filepath.Join(home, "tmp"),
		"KUBECONFIG=" + kubeconfig, "K8S_AUTH_KUBECONFIG=" + kubeconfig,
		"ANSIBLE_NOCOLOR=1", "ANSIBLE_RETRY_FILES_ENABLED=0",
	}
	cmd.Env = append(cmd.Env, e.bootstrapHostNet()...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	e.logf("bootstrap: ansible-playbook %v in %s", args, workdir)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("the bootstrap (ansible-playbook site.yml) failed after %s: %v; its output ends:\n%s", time.Since(start).Round(time.Second), err, tail(logPath, 40))
	}
	e.logf("bootstrap: ansible-playbook succeeded in %s", time.Since(start).Round(time.Second))
	return nil
}

// bootstrapHostNet is how the bootstrap host reaches the network: the
// chart repositories through the simulated internet, whose CA it trusts
// as a real host trusts the real repositories' CAs.
func (e *Env) bootstrapHostNet() []string {
	proxy := e.net.ProxyURL()
	return []string{
		"HTTPS_PROXY=" + proxy, "https_proxy=" + proxy, "HTTP_PROXY=" + proxy, "http_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"SSL_CERT_FILE=" + e.caFile,
	}
}
