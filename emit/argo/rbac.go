package argo

import (
	apiv1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/emit/internal/gitops"
)

// rbac is rbac.yaml: the workflows' ServiceAccount and the least it needs.
//
// The steps reach Argo CD only through its API server with a token that
// the kubelet injects from a Secret, so in Kubernetes the pods need just
// what Argo's executor needs to report results: create and patch
// workflowtaskresults (argoexec's
// workflow/executor/taskresult.go). No Secret, Application or
// namespace rights.
//
// The one exception is the snapshot volume policy: a VolumeSnapshot is
// not something the Argo CD API can create, so when an app uses it the
// account may also create and read VolumeSnapshots. That is a
// ClusterRole: namespaced Roles in the apps' namespaces would be applied
// (through Argo CD, at bootstrap) before those namespaces exist, and
// would fail the sync. platc's AppProject lets exactly these two
// cluster-scoped kinds through when they are emitted (gitops.SnapshotRBAC).
func (b *builder) rbac(children bool) []any {
	wf := b.p.Platform.Workflows
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: wf.Namespace, Labels: b.labels("")}
	}
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: wf.ServiceAccount, Namespace: wf.Namespace}}
	rules := []rbacv1.PolicyRule{{
		APIGroups: []string{"argoproj.io"},
		Resources: []string{"workflowtaskresults"},
		Verbs:     []string{"create", "patch"},
	}}
	if children {
		// A workflow split into children creates each child Workflow
		// (argoexec's resource template: kubectl create) and polls it with
		// GET until it ends (workflow/executor/resource.go's WaitResource);
		// it neither watches, lists, patches nor deletes them (the
		// ownerReference deletes them with the parent).
		rules = append(rules, rbacv1.PolicyRule{
			APIGroups: []string{"argoproj.io"},
			Resources: []string{"workflows"},
			Verbs:     []string{"create", "get"},
		})
	}
	objs := []any{
		&apiv1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: meta(wf.ServiceAccount)},
		&rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
			ObjectMeta: meta(ExecutorRole),
			Rules:      rules,
		},
		&rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
			ObjectMeta: meta(ExecutorRole),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ExecutorRole},
			Subjects:   subject,
		},
	}
	if !gitops.SnapshotRBAC(b.p) {
		return objs
	}
	cluster := metav1.ObjectMeta{Name: SnapshotRole, Labels: b.labels("")}
	return append(objs,
		&rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: cluster,
			Rules: []rbacv1.PolicyRule{{
				APIGroups: []string{"snapshot.storage.k8s.io"},
				Resources: []string{"volumesnapshots"},
				// create the snapshot; get to wait until it is ready.
				Verbs: []string{"create", "get"},
			}},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: cluster,
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: SnapshotRole},
			Subjects:   subject,
		},
	)
}
