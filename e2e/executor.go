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

// simulatedAnsibleGalaxy is what the executor's Phase 0 finds for the
// Ansible collections. RFC 3.2.1 requires ansible-core 2.15 and the
// collections of RFC 3.2.3, as the executor image has them (Dockerfile:
// ansible-core 2.17.14, the collections of
// .ci/ansible-requirements.yml); Debian 12 has only 2.14 and PyPI is out
// of reach here. So the versions are reported as the image's, and the
// playbook itself is Debian's (ansiblePlaybookVersion).
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

// ansiblePlaybookVersion is the executor's ansible-playbook: only its
// version report is simulated (the image's ansible-core, for Phase 0);
// everything else is Debian's real ansible-playbook (ansible-core 2.14),
// with kubernetes.core 2.4.0. platc deploy runs it to bootstrap a bare
// cluster (DeployBootstraps) and, on day 2, to reconcile what the
// bootstrap installed.
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

// executorPath is the PATH the executor runs with: the Ansible commands
// with their simulated version reports, then the environment's real
// tools.
func (e *Env) executorPath() (string, error) {
	dir := filepath.Join(e.opts.Dir, "simulated-tools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, body := range map[string]string{"ansible-playbook": ansiblePlaybookVersion, "ansible-galaxy": simulatedAnsibleGalaxy} {
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
	path, err := e.executorPath()
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
		// /config/environment.yaml is optional and absent; /secrets is
		// set below when the platform declares credentials.
		// Like Argo CD's repo-server, the executor reaches the simulated
		// internet (Phase 0's connectivity checks) through the proxy, and
		// trusts its CA as an image trusts the public ones; the API
		// server is reached directly.
		"HTTPS_PROXY=" + e.net.ProxyURL(), "HTTP_PROXY=" + e.net.ProxyURL(),
		"NO_PROXY=127.0.0.1,localhost",
		"SSL_CERT_FILE=" + e.caFile, "GIT_SSL_CAINFO=" + e.caFile,
	}, env...)
	if pl.secretsDir != "" {
		// The platform's credentials (credentials.go), as /secrets.
		cmd.Env = append(cmd.Env, "SECRETS_DIR="+pl.secretsDir)
	}
	// The bootstrap host's network and trust (bootstrap.go): the
	// executor is that host whenever it runs the bootstrap.
	cmd.Env = append(cmd.Env, e.bootstrapHostNet()...)
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
