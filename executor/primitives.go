package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/exitcode"
)

// Orchestration primitives last (RFC 6.5 step 5). The teardown workflow
// runs on Argo Workflows and talks to Argo CD, so it cannot remove them;
// the generated teardown playbook (ansible/teardown.yml, Helm uninstall
// in the six phases of the bootstrap) does, run here once the workflow
// has succeeded, and only when TEARDOWN_PRIMITIVES=true. This lives apart
// from teardown.go, which calls it in one place.

// primitivesReleases names what the teardown playbook removes, in its
// order, for the report: the bootstrap's releases as the variables file
// names them.
func (r *run) primitivesReleases() ([]string, error) {
	rels, err := r.emitted().Releases()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, role := range ansible.TeardownOrder {
		for _, rel := range rels {
			if rel.Role == role {
				out = append(out, fmt.Sprintf("Helm release %s/%s (%s)", rel.Namespace, rel.Name, role))
			}
		}
	}
	return out, nil
}

// primitivesPermissions are what Phase 0 checks before a teardown that
// will remove the primitives: Helm uninstalls cluster-wide objects (and,
// with TEARDOWN_CRDS, CRDs), so the bootstrap's rights.
func (r *run) primitivesPermissions() []preflight.Permission {
	if !r.cfg.TeardownPrimitives {
		return nil
	}
	return []preflight.Permission{{Verb: "*", Group: "*", Resource: "*",
		Why: "TEARDOWN_PRIMITIVES: the teardown playbook uninstalls Argo Events, Argo Workflows and Argo CD with Helm (cluster-admin or equivalent, as the bootstrap)"}}
}

// afterTeardown runs the teardown playbook when asked and the teardown
// left the cluster clean (code is exitcode.OK): with Applications left or
// a failed workflow, Argo CD is still needed to finish, by a second
// teardown. It returns the run's exit code.
func (r *run) afterTeardown(ctx context.Context, code int) int {
	if !r.cfg.TeardownPrimitives || r.cfg.DryRun {
		return code
	}
	if code != exitcode.OK {
		r.log.Warnf("primitives", "platform", "not removing Argo Events, Argo Workflows and Argo CD: the teardown did not finish clean, and a second teardown needs them")
		return code
	}
	r.phase = "primitives"
	releases, err := r.primitivesReleases()
	var files []emit.File
	if err == nil {
		files, err = generatedFiles(r.cfg.Program)
	}
	if err == nil {
		err = r.runTeardownPlaybook(ctx, files)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			r.rep.Summary = "interrupted while the teardown playbook removed the orchestration primitives"
			r.rep.recommend("Run platc teardown again with TEARDOWN_PRIMITIVES=true to finish: what is gone stays gone.")
			return exitcode.Failure
		}
		r.rep.Status = "failed"
		r.rep.Summary = fmt.Sprintf("the platform's apps are removed, but removing the orchestration primitives failed: %v", err)
		r.rep.recommend("Read the ansible-playbook output above (phase primitives): each release reports its pre-check, apply, test and validate steps, and the play stops at the first that fails, keeping the primitives after it. Fix the cause and run platc teardown again with TEARDOWN_PRIMITIVES=true: it finds the apps already removed and goes on with the primitives.")
		return exitcode.Failure
	}
	r.rep.Removed = append(r.rep.Removed, releases...)
	r.rep.Summary += "; Argo Events, Argo Workflows and Argo CD uninstalled"
	if !r.cfg.TeardownCRDs {
		r.rep.recommend("The CRDs of Argo CD, Argo Workflows and Argo Events were kept (their charts keep them); run teardown again with TEARDOWN_PRIMITIVES=true TEARDOWN_CRDS=true to delete them, and every object of those kinds with them.")
	}
	return exitcode.OK
}

// runTeardownPlaybook writes the generated tree as the bootstrap does and
// runs ansible/teardown.yml in it.
func (r *run) runTeardownPlaybook(ctx context.Context, files []emit.File) error {
	dir, err := os.MkdirTemp("", "platc-teardown-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	workdir, _, err := writeBootstrap(dir, files, r.cfg.Program, r.cfg.KubeconfigBytes, r.cfg.SecretsDir,
		map[string]any{"primitives_teardown_crds": r.cfg.TeardownCRDs})
	if err != nil {
		return err
	}
	args := teardownArgs(r.cfg.Program.Env.Name)
	if _, err := os.Stat(filepath.Join(workdir, "teardown.yml")); err != nil {
		return fmt.Errorf("this build of platc generates no ansible/teardown.yml: %w", err)
	}
	r.log.Infof(r.phase, "ansible", "running ansible-playbook %s", strings.Join(args, " "))
	return r.ansible(ctx, workdir, filepath.Join(dir, "kubeconfig"), args)
}

// teardownArgs are ansible-playbook's arguments for the teardown
// playbook, as bootstrapArgs for site.yml.
func teardownArgs(env string) []string {
	return []string{"-i", "inventories/" + env + "/hosts.yml", "teardown.yml", "--extra-vars", "@../platc-vars.json"}
}
