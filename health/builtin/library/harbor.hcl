# Harbor run by the Harbor operator (goharbor.io/HarborCluster,
# github.com/goharbor/harbor-operator). Argo CD has no check for any
# goharbor.io kind. (A Harbor installed from the Helm chart, as in the
# example platform, consists of Deployments and StatefulSets, which Argo
# CD assesses itself.)
#
# The operator summarises its four dependencies (the Harbor services, the
# database, the cache and the storage) in status.status: healthy when all
# four are ready, unhealthy as soon as one reports a failure, and
# provisioning otherwise.
health "goharbor.io/HarborCluster" {
  degraded = obj.status.status == "unhealthy"
  healthy  = obj.status.status == "healthy"
  message = coalesce(
    condition(obj, "ServiceReady").status == "False" ? "Harbor: ${condition(obj, "ServiceReady").message}" : null,
    condition(obj, "DatabaseReady").status == "False" ? "database: ${condition(obj, "DatabaseReady").message}" : null,
    condition(obj, "CacheReady").status == "False" ? "cache: ${condition(obj, "CacheReady").message}" : null,
    condition(obj, "StorageReady").status == "False" ? "storage: ${condition(obj, "StorageReady").message}" : null,
    obj.status.status,
    "waiting for the operator to provision the cluster",
  )

  test "healthy" {
    object       = "testdata/goharbor.io/HarborCluster/healthy.yaml"
    want         = "Healthy"
    want_message = "healthy"
  }
  test "provisioning" {
    object       = "testdata/goharbor.io/HarborCluster/provisioning.yaml"
    want         = "Progressing"
    want_message = "provisioning"
  }
  test "database-failed" {
    object       = "testdata/goharbor.io/HarborCluster/unhealthy.yaml"
    want         = "Degraded"
    want_message = "database: the database secret harbor/harbor-db has no key \"password\""
  }
  test "new" {
    object       = "testdata/goharbor.io/HarborCluster/new.yaml"
    want         = "Progressing"
    want_message = "waiting for the operator to provision the cluster"
  }
}
