package gitops

// TeardownResourceActions are the Argo CD sub-resource actions (v3
// fine-grained RBAC, update/<group>/<kind>/<namespace>/<name>) that
// teardown's delete-application step (emit/argo) performs through argocd app
// patch-resource, to apply the volume policy to what an Application
// manages before deleting it: Delete=false on claims and namespaces,
// persistentVolumeClaimRetentionPolicy on StatefulSets. In Argo CD v3,
// "update" on an Application no longer covers its resources, so the
// automation account needs these on the platform's projects, whatever an
// app's own policy, since a teardown run may override it.
//
// Everything else the steps do needs get (every step), sync (deploy),
// delete (teardown) on the platform's Applications, and update on the apps
// that ask for automated sync (deploy switches it on, teardown off).
var TeardownResourceActions = []string{
	"update//Namespace/*/*",
	"update//PersistentVolumeClaim/*/*",
	"update/apps/StatefulSet/*/*",
}
