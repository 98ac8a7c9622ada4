package executor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/all"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// bootstrap installs the orchestration primitives with the platform's
// generated Ansible (RFC 6.2) when Argo CD or Argo Workflows is absent.
//
// The playbooks are generated now, from the Program this run compiled,
// into a private temporary directory, rather than read from a committed
// generated/ tree: the executor is stateless and compiles the mounted
// source itself, so what it bootstraps always matches what it is about to
// deploy, even when the committed output is stale or not mounted at all.
func (r *run) bootstrap(ctx context.Context, cr *preflight.ClusterReport) int {
	r.phase = "bootstrap"
	var missing []string
	for _, c := range []struct {
		name      string
		installed bool
		what      []string
	}{{cr.ArgoCD.Name, cr.ArgoCD.Installed, cr.ArgoCD.Missing}, {cr.Workflows.Name, cr.Workflows.Installed, cr.Workflows.Missing}} {
		if !c.installed {
			missing = append(missing, fmt.Sprintf("%s (%s)", c.name, strings.Join(c.what, ", ")))
			r.log.Infof(r.phase, c.name, "not installed: missing %s", strings.Join(c.what, ", "))
		}
	}
	// Bootstrap installs CRDs, namespaces and controllers: RFC 3.2.4's
	// cluster-admin or equivalent. Asked only now, because a deploy onto
	// a bootstrapped cluster needs far less.
	denied := preflight.AskPermissions(ctx, r.client, bootstrapPermissions())
	if len(denied) > 0 {
		r.rep.Summary = fmt.Sprintf("bootstrap is needed (%s missing) but the kubeconfig's user may not: %s", english.List(missing), strings.Join(denied, "; "))
		r.rep.recommend("Run the first deploy with a cluster-admin kubeconfig; later deploys need only the permissions Phase 0 lists.")
		return exitcode.Failure
	}
	files, err := generatedFiles(r.cfg.Program)
	if err != nil {
		r.rep.Summary = err.Error()
		return exitcode.Failure
	}
	if r.cfg.DryRun {
		args := bootstrapArgs(r.cfg.Program.Env.Name)
		r.rep.Plan = append(r.rep.Plan,
			fmt.Sprintf("bootstrap %s: ansible-playbook %s in ansible/ of the %d files platc generates", english.List(missing), strings.Join(args, " "), len(files)),
			"then submit the deploy workflow for every app in scope")
		r.rep.Status = "dry-run"
		r.rep.Summary = "Phase 0 passed; a real run would bootstrap the orchestration primitives first"
		return exitcode.OK
	}
	if err := r.runBootstrap(ctx, files, nil); err != nil {
		r.rep.Summary = fmt.Sprintf("bootstrap failed: %v", err)
		r.rep.recommend("Read the ansible-playbook output above (phase bootstrap); every role reports its pre-check, apply, test and validate steps. Fix the cause and run platc deploy again: Helm installs are idempotent.")
		return exitcode.Failure
	}

	// The playbook must have left the primitives behind; otherwise
	// submitting a workflow would only fail less clearly.
	after := preflight.CheckPrimitives(ctx, r.client, r.clusterOptions(nil, DeployTemplate))
	if !after.ArgoCD.Installed || !after.Workflows.Installed {
		var still []string
		for _, c := range []struct {
			name string
			ok   bool
			what []string
		}{{after.ArgoCD.Name, after.ArgoCD.Installed, after.ArgoCD.Missing}, {after.Workflows.Name, after.Workflows.Installed, after.Workflows.Missing}} {
			if !c.ok {
				still = append(still, fmt.Sprintf("%s (%s)", c.name, strings.Join(c.what, ", ")))
			}
		}
		r.rep.Summary = fmt.Sprintf("bootstrap finished but %s still missing", english.List(still))
		return exitcode.Failure
	}
	r.log.Infof(r.phase, "ansible", "Argo CD and Argo Workflows are installed")
	return exitcode.OK
}

// bootstrapPermissions are what running the bootstrap needs: it creates
// namespaces, CRDs and controllers (RFC 3.2.4's cluster-admin or
// equivalent). Asked only when bootstrap or a reconcile must run, since
// a deploy onto a bootstrapped, current cluster needs far less.
func bootstrapPermissions() []preflight.Permission {
	return []preflight.Permission{
		{Verb: "create", Resource: "namespaces", Why: "bootstrap creates the Argo namespaces"},
		{Verb: "*", Group: "*", Resource: "*", Why: "bootstrap installs CRDs and controllers with Helm (RFC 3.2.4: cluster-admin or equivalent)"},
	}
}

// runBootstrap writes files (everything platc build generates for the
// environment) with the kubeconfig and the variables file into a private
// temporary directory and runs the generated site.yml there, with extra
// variables beyond bootstrapVars.
func (r *run) runBootstrap(ctx context.Context, files []emit.File, extra map[string]any) error {
	dir, err := os.MkdirTemp("", "platc-bootstrap-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	workdir, args, err := writeBootstrap(dir, files, r.cfg.Program, r.cfg.KubeconfigBytes, r.cfg.SecretsDir, extra)
	if err != nil {
		return err
	}
	r.log.Infof(r.phase, "ansible", "running ansible-playbook %s", strings.Join(args, " "))
	return r.ansible(ctx, workdir, filepath.Join(dir, "kubeconfig"), args)
}

// bootstrapArgs are ansible-playbook's arguments, run in ansible/ so the
// generated ansible.cfg (roles path, inventory) applies; the variables
// file sits one level up, outside the generated tree.
func bootstrapArgs(env string) []string {
	return []string{"-i", "inventories/" + env + "/hosts.yml", "site.yml", "--extra-vars", "@../platc-vars.json"}
}

// generatedFiles emits everything platc build would write for the
// environment (generated/<env>/), since the playbooks read files beside
// them (argocd/values.yaml, say), and checks the Ansible tree of RFC
// 6.2.1 is there.
func generatedFiles(prog *ir.Program) ([]emit.File, error) {
	out, err := all.Emit(prog)
	if err != nil {
		return nil, fmt.Errorf("generating the bootstrap playbooks: %w (this is a platc bug)", err)
	}
	site, inv := false, false
	for _, f := range out {
		site = site || f.Path == "ansible/site.yml"
		inv = inv || strings.HasPrefix(f.Path, "ansible/inventories/") && path.Base(f.Path) == "hosts.yml"
	}
	if !site || !inv {
		return nil, fmt.Errorf("bootstrap is needed, but this build of platc generates no Ansible playbook (ansible/site.yml and an inventory); install Argo CD and Argo Workflows first, or use a platc with the Ansible emitter")
	}
	return out, nil
}

// WriteBootstrap lays out dir as a bootstrap runs ansible-playbook on it:
// files (the tree platc generates for the environment), the kubeconfig
// (KUBECONFIG and K8S_AUTH_KUBECONFIG name dir/kubeconfig) and the extra
// variables. It returns the directory to run ansible-playbook in and its
// arguments. platc deploy passes the files it generates on the spot; the
// e2e environment passes platc build's output, so that both run the
// generated playbook the same way.
func WriteBootstrap(dir string, files []emit.File, prog *ir.Program, kubeconfig []byte, secretsDir string) (workdir string, args []string, err error) {
	return writeBootstrap(dir, files, prog, kubeconfig, secretsDir, nil)
}

// writeBootstrap is WriteBootstrap with extra variables beyond
// bootstrapVars.
func writeBootstrap(dir string, files []emit.File, prog *ir.Program, kubeconfig []byte, secretsDir string, extra map[string]any) (string, []string, error) {
	vars := bootstrapVars(prog, dir, secretsDir)
	for k, v := range extra {
		vars[k] = v
	}
	if err := writeBootstrapDir(dir, files, kubeconfig, vars); err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, "ansible"), bootstrapArgs(prog.Env.Name), nil
}

// bootstrapVars are the extra variables handed to the playbook in a file,
// never on a command line a shell would read.
func (r *run) bootstrapVars(dir string) map[string]any {
	return bootstrapVars(r.cfg.Program, dir, r.cfg.SecretsDir)
}

func bootstrapVars(prog *ir.Program, dir, secretsDir string) map[string]any {
	v := map[string]any{
		"platc_environment":         prog.Env.Name,
		"platc_kubeconfig":          filepath.Join(dir, "kubeconfig"),
		"platc_argocd_namespace":    prog.Platform.ArgoCD.Namespace,
		"platc_workflows_namespace": prog.Platform.Workflows.Namespace,
		// deploy submits the deploy workflow itself once the bootstrap
		// (or a reconcile) is done, for its own scope, with its trace id
		// and only when an app needs it; one the gitops-handoff role
		// submitted would deploy the whole platform alongside it.
		"gitops_handoff_submit": false,
	}
	if secretsDir != "" {
		v["platc_secrets_dir"] = secretsDir
	}
	return v
}

func writeBootstrapDir(dir string, files []emit.File, kubeconfig []byte, vars map[string]any) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return err
		}
	}
	// The kubeconfig goes to a file only this user can read, removed with
	// the directory when bootstrap ends.
	if err := os.WriteFile(filepath.Join(dir, "kubeconfig"), kubeconfig, 0o600); err != nil {
		return err
	}
	b, err := json.MarshalIndent(vars, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "platc-vars.json"), b, 0o600)
}

// ansible runs ansible-playbook in dir with args (no shell) and the
// kubeconfig file in KUBECONFIG, streaming its output into the log line
// by line.
func (r *run) ansible(ctx context.Context, dir, kubeconfig string, args []string) error {
	bin, err := preflight.LookPath("ansible-playbook", toolPath(r.env.ToolPath))
	if err != nil {
		return fmt.Errorf("ansible-playbook not found: %w", err)
	}
	timeout := r.cfg.Timeout
	if timeout <= 0 {
		timeout = time.Hour
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(preflight.ToolEnv(toolPath(r.env.ToolPath)),
		"KUBECONFIG="+kubeconfig,
		"K8S_AUTH_KUBECONFIG="+kubeconfig,
		"ANSIBLE_NOCOLOR=1", "ANSIBLE_RETRY_FILES_ENABLED=0")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			if line := strings.TrimRight(sc.Text(), " \t"); line != "" {
				r.log.Infof(r.phase, "ansible", "%s", line)
			}
		}
	}()
	wg.Wait()
	err = cmd.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("ansible-playbook did not finish within %s", timeout)
	}
	if err != nil {
		return fmt.Errorf("ansible-playbook: %w", err)
	}
	return nil
}

func toolPath(p string) string {
	if p == "" {
		return os.Getenv("PATH")
	}
	return p
}
