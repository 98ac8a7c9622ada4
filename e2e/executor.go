package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Result is one run of the real executor (platc deploy, validate or
// teardown).
type Result struct {
	Action   string
	ExitCode int
	// Report is the final report: one JSON line (LOG_FORMAT=json).
	Report []byte
	// Logs are the JSON log lines platc wrote to stderr.
	Logs     []byte
	Duration time.Duration
}

// simulatedAnsible is what the executor's Phase 0 finds for Ansible. RFC
// 3.2.1 requires ansible-core 2.15 and the collections of RFC 3.2.3, as
// the executor image has them (Dockerfile: ansible-core 2.17.14, the
// collections of .ci/ansible-requirements.yml); Debian 12 has only 2.14
// and PyPI is out of reach here. The harness runs the bootstrap itself
// before platc deploy (bootstrap.go), so deploy never needs to: these two
// commands report the image's versions and refuse to run anything.
const simulatedAnsiblePlaybook = `#!/bin/sh
# Simulated by platc's e2e environment (e2e/executor.go): reports the
# executor image's ansible-core for Phase 0 and runs nothing. Its Python
# is this machine's real one, which runs the real bootstrap here: Phase 0
# checks RFC 3.2.2's packages in it.
if [ "$1" = --version ]; then
  echo 'ansible-playbook [core 2.17.14]'
  echo '  python version = 3.11.2 (main) [GCC 12.2.0] (/usr/bin/python3)'
  exit 0
fi
echo "ansible-playbook is simulated in platc's e2e environment; the harness ran the bootstrap" >&2
exit 97
`

const simulatedAnsibleGalaxy = `#!/bin/sh
# Simulated by platc's e2e environment (e2e/executor.go): reports the
# collections of .ci/ansible-requirements.yml for Phase 0.
if [ "$1 $2" = "collection list" ]; then
  cat <<'EOF'
{"/usr/share/ansible/collections/ansible_collections": {"kubernetes.core": {"version": "5.3.0"}, "community.general": {"version": "10.7.0"}, "ansible.posix": {"version": "2.0.0"}, "ansible.utils": {"version": "6.0.0"}}}
EOF
  exit 0
fi
echo "ansible-galaxy is simulated in platc's e2e environment" >&2
exit 97
`

// ansiblePlaybookVersion is the ansible-playbook of a platform whose
// bootstrap platc deploy runs: only its version report is simulated (the
// image's ansible-core, for Phase 0); everything else is Debian's real
// ansible-playbook (ansible-core 2.14), with kubernetes.core 2.4.0.
const ansiblePlaybookVersion = `#!/bin/sh
# Simulated by platc's e2e environment (e2e/executor.go): reports the
# executor image's ansible-core for Phase 0, with the real one's Python;
# runs the real one otherwise.
if [ "$1" = --version ]; then
  echo 'ansible-playbook [core 2.17.14]'
  echo '  python version = 3.11.2 (main) [GCC 12.2.0] (/usr/bin/python3)'
  exit 0
fi
exec /usr/bin/ansible-playbook "$@"
`

// executorPath is the PATH the executor runs with: the simulated Ansible
// commands, then the environment's real tools. With bootstrap,
// ansible-playbook runs the real one.
func (e *Env) executorPath(bootstrap bool) (string, error) {
	dir := filepath.Join(e.opts.Dir, "simulated-tools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	playbook := simulatedAnsiblePlaybook
	if bootstrap {
		playbook = ansiblePlaybookVersion
	}
	for name, body := range map[string]string{"ansible-playbook": playbook, "ansible-galaxy": simulatedAnsibleGalaxy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			return "", err
		}
	}
	return dir + ":" + e.ToolPath(), nil
}

// Platc runs platc ACTION as the executor image would run it:
// KUBECONFIG_PATH, ENVIRONMENT, PLATFORM_PATH and LOG_FORMAT=json, plus
// env (TARGET_SCOPE, TEARDOWN_CONFIRM, ...).
func (pl *Platform) Platc(ctx context.Context, action string, env ...string) (*Result, error) {
	e := pl.Env
	path, err := e.executorPath(pl.Opts.DeployBootstraps)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, pl.Opts.Platc, action)
	cmd.Env = append([]string{
		"PATH=" + path,
		"HOME=" + e.opts.Dir,
		"KUBECONFIG_PATH=" + e.Kubeconfig,
		"ENVIRONMENT=" + pl.Program.Env.Name,
		"PLATFORM_PATH=" + pl.Opts.Path,
		"LOG_FORMAT=json",
		// /config/environment.yaml and /secrets are optional and absent.
		// Like Argo CD's repo-server, the executor reaches the simulated
		// internet (Phase 0's connectivity checks) through the proxy, and
		// trusts its CA as an image trusts the public ones; the API
		// server is reached directly.
		"HTTPS_PROXY=" + e.net.ProxyURL(), "HTTP_PROXY=" + e.net.ProxyURL(),
		"NO_PROXY=127.0.0.1,localhost",
		"SSL_CERT_FILE=" + e.caFile, "GIT_SSL_CAINFO=" + e.caFile,
	}, env...)
	if pl.Opts.DeployBootstraps {
		// The bootstrap host's network and trust (bootstrap.go).
		cmd.Env = append(cmd.Env, e.bootstrapHostNet()...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	r := &Result{Action: action, Report: stdout.Bytes(), Logs: stderr.Bytes(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.ExitCode = ee.ExitCode()
	default:
		return nil, fmt.Errorf("platc %s: %w", action, err)
	}
	e.logf("platc %s exited %d after %s", action, r.ExitCode, r.Duration.Round(time.Second))
	return r, nil
}

// LastLog returns the last n log lines of a result, for failure
// messages.
func (r *Result) LastLog(n int) string {
	lines := strings.Split(strings.TrimRight(string(r.Logs), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
