package e2e

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 19: on a cluster without Argo CD and Argo Workflows, platc
// deploy runs the generated bootstrap itself (the real ansible-playbook
// and Helm, with the stand-in charts) and then its own deploy workflow.
//
// First the argo-cd chart ships another Argo CD than the platform
// declares (a chart bumped without platform.argocd.version): Helm
// installs it, the argocd role's Test refuses the version, its rescue
// removes the release this run installed, and deploy exits 1 with the
// ansible output naming the role and the reason; nothing of the release
// is left. With the chart fixed, the same deploy bootstraps, deploys the
// shop and exits 0 with one deploy workflow, its own.
func TestBootstrapByDeploy(t *testing.T) {
	// The shop declares the Argo CD version the environment runs, so the
	// argocd role checks the chart's.
	dir := shopWith(t, `project   = "shop"`, `project   = "shop"
    version   = "v3.2.6"`)
	s := startWith(t, PlatformOptions{Path: dir, DeployBootstraps: true})
	ns := s.pl.Program.Platform.ArgoCD.Namespace
	i := s.pl.standIn(t, "argocd")
	good := s.pl.standIns[i].appVersion
	s.pl.standIns[i].appVersion = "v3.1.9"
	if err := s.pl.PublishStandIn(s.pl.standIns[i]); err != nil {
		t.Fatal(err)
	}

	r := s.run("deploy", ExitFailure)
	wantIn(t, "logs", string(r.Logs),
		"argocd: rolled_back (Test | Require the Argo CD version the platform declares: Argo CD v3.1.9 is installed but the platform declares "+good+")",
		"Rollback | Remove the release this run installed", "bootstrap failed")
	wantIn(t, "report", string(r.Report), "bootstrap failed")
	release := metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=argocd"}
	if deps, err := s.env.Kube.AppsV1().Deployments(ns).List(s.ctx, release); err != nil || len(deps.Items) > 0 {
		t.Errorf("the rolled-back release left %d Deployments (%v)", len(deps.Items), err)
	}
	if secrets, err := s.env.Kube.CoreV1().Secrets(ns).List(s.ctx, metav1.ListOptions{LabelSelector: "owner=helm,name=argocd"}); err != nil || len(secrets.Items) > 0 {
		t.Errorf("Helm still records the release argocd (%v)", err)
	}

	s.pl.standIns[i].appVersion = good
	if err := s.pl.PublishStandIn(s.pl.standIns[i]); err != nil {
		t.Fatal(err)
	}
	r = s.run("deploy", ExitOK)
	wantIn(t, "logs", string(r.Logs), "argocd: success", "gitops-handoff: success", "Argo CD and Argo Workflows are installed")
	s.settle()
	s.wantConverged()
	if n := s.workflows(); n != 1 {
		t.Errorf("%d Workflows after the bootstrapping deploy, want its own only", n)
	}
}

// standIn is the index in pl.standIns of the stand-in chart whose
// group_vars prefix is prefix (argocd, argo_workflows, ...).
func (pl *Platform) standIn(t *testing.T, prefix string) int {
	t.Helper()
	for i, c := range pl.standIns {
		if c.prefix == prefix {
			return i
		}
	}
	t.Fatalf("no stand-in chart for %s", prefix)
	return -1
}
