# Temporal run by the Temporal operator (temporal.io/TemporalCluster,
# github.com/alexandrevilain/temporal-operator). Argo CD has no check for
# any Temporal kind.
#
# RFC 4.8 asks for a healthy frontend. The operator sets the Ready
# condition True (reason ServicesReady) only when every service it runs
# (frontend, history, matching, worker, internal frontend) is ready, and
# resets Ready whenever the generation changes, so Ready True for the
# current generation covers the frontend.
#
# The operator retries every failure, and its ReconcileError and
# ReconcileSuccess conditions never go back to False, so an old error
# stays on the resource. Degraded therefore means: reconciling the
# current generation failed, nothing has reconciled it successfully
# since, and the services are not ready. A database that is briefly
# unreachable while the cluster starts can show as Degraded until the
# next retry succeeds.
health "temporal.io/TemporalCluster" {
  degraded = (
    condition(obj, "ReconcileError").status == "True" &&
    condition(obj, "ReconcileError").observedGeneration == obj.metadata.generation &&
    !(condition(obj, "ReconcileSuccess").observedGeneration == obj.metadata.generation) &&
    !(condition(obj, "Ready").status == "True")
  )
  healthy = condition(obj, "Ready").status == "True" && condition(obj, "Ready").observedGeneration == obj.metadata.generation
  message = coalesce(
    condition(obj, "ReconcileError").status == "True" && !(condition(obj, "ReconcileSuccess").observedGeneration == obj.metadata.generation) ? "${condition(obj, "ReconcileError").reason}: ${condition(obj, "ReconcileError").message}" : null,
    condition(obj, "Ready").reason,
    "waiting for the operator to reconcile the cluster",
  )

  test "ready" {
    object       = "testdata/temporal.io/TemporalCluster/ready.yaml"
    want         = "Healthy"
    want_message = "ServicesReady"
  }
  test "services-starting" {
    object       = "testdata/temporal.io/TemporalCluster/services-not-ready.yaml"
    want         = "Progressing"
    want_message = "ServicesNotReady"
  }
  test "new" {
    object       = "testdata/temporal.io/TemporalCluster/new.yaml"
    want         = "Progressing"
    want_message = "waiting for the operator to reconcile the cluster"
  }
  test "old-error-then-success" {
    object       = "testdata/temporal.io/TemporalCluster/recovered.yaml"
    want         = "Progressing"
    want_message = "ServicesNotReady"
  }
  test "persistence-failed" {
    object       = "testdata/temporal.io/TemporalCluster/persistence-failed.yaml"
    want         = "Degraded"
    want_message = "PersistenceReconciliationFailed: can't reconcile schema: failed to connect to `host=platform-db.databases user=temporal database=temporal`: server error (FATAL: password authentication failed for user \"temporal\" (SQLSTATE 28P01))"
  }
}
