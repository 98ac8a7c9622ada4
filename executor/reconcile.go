package executor

import (
	"context"
	"fmt"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// reconcileBootstrap brings what the bootstrap installed in line with the
// compiled platform the way it was installed: it runs the generated
// bootstrap again. Helm upgrades a release whose chart version or values
// differ (kubernetes.core.helm leaves one alone otherwise), the roles are
// idempotent, and the gitops-handoff role recreates a missing token
// Secret. Then it compares again. Nothing here writes an object itself:
// each has one owner, a Helm release or the gitops-handoff role
// (docs/day2.md), and platc only runs them.
//
// done means the deploy ends here with code: a dry run (the Plan says
// what would run), the permissions bootstrap needs are missing, or the
// playbook failed. Otherwise dc is the comparison after the playbook ran.
func (r *run) reconcileBootstrap(ctx context.Context, scope []*ir.App, before driftCheck) (dc driftCheck, code int, done bool) {
	kinds := driftKindList(before.Drift)
	prev := r.phase
	r.phase = "reconcile"
	defer func() { r.phase = prev }()
	if !r.cfg.DryRun {
		r.log.Infof(r.phase, "bootstrap", "what the bootstrap installed differs from the platform (%s): running the generated bootstrap again", kinds)
	}
	denied := preflight.AskPermissions(ctx, r.client, bootstrapPermissions())
	if len(denied) > 0 {
		r.refuseReconcile(before.Drift, fmt.Sprintf("reconciling it runs the bootstrap, which the kubeconfig's user may not: %s", strings.Join(denied, "; ")))
		r.rep.recommend("Run this deploy with a cluster-admin kubeconfig: it runs the generated bootstrap again, then the deploy workflow. Deploys of a platform whose bootstrap is current need only the permissions Phase 0 lists.")
		return before, exitcode.Failure, true
	}
	files, err := generatedFiles(r.cfg.Program)
	if err != nil {
		r.refuseReconcile(before.Drift, err.Error())
		return before, exitcode.Failure, true
	}
	if r.cfg.DryRun {
		r.rep.Plan = append(r.rep.Plan,
			fmt.Sprintf("reconcile what the bootstrap installed (%s differ): ansible-playbook %s in ansible/ of the %d files platc generates; Helm upgrades the releases whose chart or values differ",
				kinds, strings.Join(bootstrapArgs(r.cfg.Program.Env.Name), " "), len(files)),
			"compare again, and refuse to start the deploy workflow if argocd-cm's health customizations still differ or an app in scope is still refused by its AppProject",
			"then submit the deploy workflow for every app in scope not yet Synced and Healthy")
		r.rep.Status = "dry-run"
		r.rep.Summary = fmt.Sprintf("Phase 0 passed; a real run would first reconcile what the bootstrap installed (%s) by running the generated bootstrap again", kinds)
		return before, exitcode.OK, true
	}
	// The gitops-handoff role submits the deploy workflow after a day-0
	// bootstrap; here platc submits it itself, for its scope and only if
	// an app needs it (RFC 7.3: nothing to do creates nothing).
	if err := r.runBootstrap(ctx, files, map[string]any{"gitops_handoff_submit": false}); err != nil {
		r.refuseReconcile(before.Drift, fmt.Sprintf("running the bootstrap again failed: %v", err))
		r.rep.recommend("Read the ansible-playbook output above (phase reconcile); every role reports its pre-check, apply, test and validate steps, and a failed Helm upgrade is rolled back. Fix the cause and run platc deploy again.")
		return before, exitcode.Failure, true
	}
	r.rep.Reconciled = before.Drift
	r.rep.Metrics["reconciled"] = len(before.Drift)
	dc = r.reportBootstrap(ctx, scope)
	if len(dc.Drift) == 0 {
		r.log.Infof(r.phase, "bootstrap", "the bootstrap ran again; what it installed matches the platform")
	} else {
		r.log.Warnf(r.phase, "bootstrap", "the bootstrap ran again, yet %s still differ", driftKindList(dc.Drift))
		r.recommendStillDrifting(dc)
	}
	return dc, exitcode.OK, false
}

// refuseReconcile ends a deploy whose bootstrap drift could not be
// reconciled: the workflow does not start (exit 1), and the summary names
// the kinds.
func (r *run) refuseReconcile(drift []Drift, why string) {
	what := "refused to start the deploy workflow"
	if r.cfg.DryRun {
		what = "a real run would refuse to start the deploy workflow"
		r.rep.Status = "dry-run"
	}
	kinds := driftKindList(drift)
	if blocking := blockingOf(drift); len(blocking) > 0 {
		kinds += "; " + driftKinds(blocking)
	}
	r.rep.Summary = fmt.Sprintf("%s: what the bootstrap installed differs from the platform (%s), and %s", what, kinds, why)
	r.driftRefused = true
}

// recommendStillDrifting explains drift the bootstrap did not remove.
// kubernetes.core.helm upgrades a release only when its chart version or
// values differ from the platform's, so an object edited by hand while
// its release is current stays as it is (Helm's own three-way merge would
// restore it on an upgrade).
func (r *run) recommendStillDrifting(dc driftCheck) {
	var rels []string
	for _, d := range dc.Drift {
		if d.What == DriftRelease {
			rels = append(rels, d.Object)
		}
	}
	if len(rels) > 0 {
		r.rep.recommend("The bootstrap ran again, but %s %s still %s from the platform; read the ansible-playbook output above (phase reconcile).",
			english.Plural(len(rels), "Helm release"), english.List(rels), english.Agree(len(rels), "differs", "differ"))
		return
	}
	if len(dc.Drift) > 0 {
		r.rep.recommend("The bootstrap ran again and its Helm releases match the platform, so the objects that still differ were changed by hand after Helm installed them; Ansible's helm module does not upgrade a release whose chart and values are current. Have Helm apply the release again, e.g. 'helm upgrade <release> <chart> --version <version> --reuse-values -n <namespace>' (helm list -n %s shows them), then run platc deploy again.",
			r.cfg.Program.Platform.ArgoCD.Namespace)
	}
}
