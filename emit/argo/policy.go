package argo

import (
	"cmp"
	"slices"

	"github.com/platc/platc/compiler/ir"
)

// Permission is one Argo CD RBAC grant the generated workflows need, in
// the terms of argocd-rbac-cm: p, <role>, applications, Action, Object,
// allow. The emitter of the Argo CD values (argocd/values.yaml) renders
// these lines for the automation account, so that account can do exactly
// what the steps do and nothing more.
type Permission struct {
	Action string // such as "sync", or "update/apps/StatefulSet/*/*"
	Object string // "<project>/<application>"
	// Why names the step that needs it.
	Why string
}

// Sub-resource actions (Argo CD v3 fine-grained RBAC:
// update/<group>/<kind>/<namespace>/<name>) that teardown's
// delete-application uses through argocd app patch-resource. They are
// granted whatever an app's own volume policy, because a teardown run
// may override the policy.
var teardownPatches = []string{
	"update//Namespace/*/*",
	"update//PersistentVolumeClaim/*/*",
	"update/apps/StatefulSet/*/*",
}

// ArgoCDPermissions lists, for every app of p, the Argo CD actions the
// deploy, validate and teardown workflows perform on its Application,
// sorted by object then action:
//
//   - get: every step reads the Application (get, list, get-resource,
//     wait).
//   - sync: sync-and-wait.
//   - delete: delete-and-wait.
//   - update: only for apps whose sync block asks for automated sync,
//     which deploy's last step switches on and teardown switches off.
//   - the update/... sub-resource actions of teardown's volume policy.
//
// Not listed, because the Application is not known here: teardown's
// suspend-parents step needs get and update on the app-of-apps that
// manages the platform's Applications (the root app), to switch its
// automated sync off before anything is deleted.
func ArgoCDPermissions(p *ir.Program) []Permission {
	var out []Permission
	for _, a := range p.Apps {
		obj := a.Project + "/" + a.Application
		add := func(action, why string) { out = append(out, Permission{Action: action, Object: obj, Why: why}) }
		add("get", "every step reads the Application")
		add("sync", "deploy: sync-and-wait")
		add("delete", "teardown: delete-and-wait")
		if a.Sync.Automated {
			add("update", "deploy: enable-auto-sync; teardown: switch it off before deleting")
		}
		for _, act := range teardownPatches {
			add(act, "teardown: apply the volume policy before deleting")
		}
	}
	slices.SortStableFunc(out, func(x, y Permission) int {
		return cmp.Or(cmp.Compare(x.Object, y.Object), cmp.Compare(x.Action, y.Action))
	})
	return slices.CompactFunc(out, func(x, y Permission) bool { return x.Object == y.Object && x.Action == y.Action })
}
