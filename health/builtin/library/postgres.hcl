# Zalando postgres-operator. Argo CD's own check (v2.14+) treats every
# status it does not know, including none at all, as Degraded.
#
# The postgresql resource reports one field, status.PostgresClusterStatus.
# The operator sets Running after creating a cluster only once every pod
# of its StatefulSet is Ready and carries its master or replica role
# (Cluster.Create waits in waitStatefulsetPodsReady), so Running is the
# "all replicas ready" the RFC asks for; the resource carries no replica
# counts to compare. The *Failed states and Invalid need a change to the
# spec or a look at the operator's log.
health "acid.zalan.do/postgresql" {
  degraded = contains(["CreateFailed", "UpdateFailed", "SyncFailed", "Invalid"], obj.status.PostgresClusterStatus)
  healthy  = obj.status.PostgresClusterStatus == "Running"
  message  = coalesce(obj.status.PostgresClusterStatus, "waiting for the operator to report the cluster status")

  test "running" {
    object       = "testdata/acid.zalan.do/postgresql/argocd-healthy.yaml"
    want         = "Healthy"
    want_message = "Running"
  }
  test "updating" {
    object       = "testdata/acid.zalan.do/postgresql/argocd-progressing.yaml"
    want         = "Progressing"
    want_message = "Updating"
  }
  test "creating" {
    object       = "testdata/acid.zalan.do/postgresql/creating.yaml"
    want         = "Progressing"
    want_message = "Creating"
  }
  test "no-status-yet" {
    object       = "testdata/acid.zalan.do/postgresql/argocd-provisioning.yaml"
    want         = "Progressing"
    want_message = "waiting for the operator to report the cluster status"
  }
  test "update-failed" {
    object       = "testdata/acid.zalan.do/postgresql/argocd-degraded.yaml"
    want         = "Degraded"
    want_message = "UpdateFailed"
  }
  test "sync-failed" {
    object       = "testdata/acid.zalan.do/postgresql/sync-failed.yaml"
    want         = "Degraded"
    want_message = "SyncFailed"
  }
}
