package rules

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/lint"
)

// PrivilegedWorkflowAccount reports a workflows namespace or service
// account that belongs to a controller platc's bootstrap installs.
var PrivilegedWorkflowAccount = &lint.Rule{
	Name: "privileged-workflow-account",
	Doc: `workflow steps may run as a privileged controller account

The workflow pods run as platform.workflows.service_account in
platform.workflows.namespace. platc writes that ServiceAccount with the
least the steps need (rbac.yaml), but it cannot remove rights the cluster
already binds to an account of the same name. The bootstrap installs
accounts that hold far more: Argo CD's application controller is
cluster-admin in a standard install, the Argo Workflows controller
creates pods everywhere, the sealed-secrets controller reads every
Secret. Naming one of them, for example argocd-application-controller in
namespace argocd, runs every step, and the image it pulls, with those
rights.

The namespace matters on its own: Argo Workflows runs a Workflow's pods
as whichever ServiceAccount of its namespace the Workflow names, so
whoever may create Workflows there (the events sensor may, and so may
users of the Argo Workflows UI) can run as any account in it. The rule
reports the workflows namespace when it is Argo CD's namespace, the
Argo Events namespace or kube-system, and the service account when it
is "default" or one that the bootstrap's charts create in that
namespace. platc cannot see the cluster: an account made by something
else under the same name is not reported.

Keep the defaults ("platc-orchestrator" in "argo"), or a name and a
namespace that only platc uses.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		w := p.Module.Platform.Workflows
		fallback := p.Module.Platform.NameRange
		var nsAttr, saAttr *hcl.Attribute
		if w != nil {
			fallback = w.DeclRange
			nsAttr, saAttr = w.Namespace, w.ServiceAccount
		}
		for _, prog := range p.Programs {
			wf := prog.Platform.Workflows
			if who := controllerNamespace(prog.Platform, wf.Namespace); who != "" {
				p.Report(lint.Issue{
					Message: fmt.Sprintf("workflows namespace %q is %s", wf.Namespace, who),
					Detail:  "Argo Workflows runs a Workflow's pods as any ServiceAccount of its namespace that the Workflow names, so whoever may create Workflows here (the events sensor, users of the Argo Workflows UI) can run as the controllers' accounts. Give the workflows a namespace of their own, such as the default \"argo\".",
					Subject: exprRange(nsAttr, fallback),
				})
			}
			if saAttr == nil {
				continue // platc-orchestrator, platc's own name
			}
			if who := controllerAccount(prog.Platform, wf.Namespace, wf.ServiceAccount); who != "" {
				p.Report(lint.Issue{
					Message: fmt.Sprintf("workflow service account %q in namespace %q is %s", wf.ServiceAccount, wf.Namespace, who),
					Detail:  "Every workflow step runs as this account, with every right the cluster binds to it, not only those in platc's rbac.yaml. Remove service_account to use platc's own \"platc-orchestrator\", or name an account only platc uses.",
					Subject: saAttr.Expr.Range(),
				})
			}
		}
		return nil
	},
}

// controllerNamespace says whose namespace ns is, when the bootstrap
// installs a privileged controller there, or returns "".
func controllerNamespace(pl ir.Platform, ns string) string {
	switch ns {
	case pl.ArgoCD.Namespace:
		return "Argo CD's namespace, whose application controller is cluster-admin in a standard install"
	case argoEventsNamespace:
		return "Argo Events' namespace, where its controller runs"
	case "kube-system":
		return "kube-system, where the cluster's own controllers and the sealed-secrets controller run"
	}
	return ""
}

// argoEventsNamespace is where emit/ansible installs Argo Events.
const argoEventsNamespace = "argo-events"

// controllerAccount says whose account sa in ns is, when it is "default"
// or one the bootstrap's charts create there, or returns "".
func controllerAccount(pl ir.Platform, ns, sa string) string {
	if sa == "default" {
		return "the account of every pod in the namespace that names none"
	}
	// The names the charts give their accounts under the release names
	// emit/ansible installs them with (argocd, argo-workflows,
	// argo-events, sealed-secrets-controller). Argo Workflows is installed
	// in the workflows namespace itself.
	accounts := map[string]string{
		"argo-workflows-workflow-controller": "the Argo Workflows controller, which creates pods in every namespace it watches",
		"argo-workflows-server":              "the Argo Workflows server",
	}
	switch ns {
	case pl.ArgoCD.Namespace:
		accounts["argocd-application-controller"] = "Argo CD's application controller, cluster-admin in a standard install"
		for _, c := range []string{"applicationset-controller", "server", "repo-server", "notifications-controller", "dex-server"} {
			accounts["argocd-"+c] = "an account of Argo CD's " + c
		}
	case argoEventsNamespace:
		accounts["argo-events-controller-manager"] = "the Argo Events controller"
	case "kube-system":
		accounts["sealed-secrets-controller"] = "the sealed-secrets controller, which reads and writes every Secret"
	}
	return accounts[sa]
}
