# KubeVirt (kubevirt.io/KubeVirt), the resource that tells virt-operator
# to deploy KubeVirt. Argo CD has no check for it.
#
# virt-operator reports phase Deploying, then Deployed, and the conditions
# Available, Progressing and Degraded (the conventions of OpenShift
# cluster operators). Healthy: Deployed and Available. Degraded: the
# operator says so.
health "kubevirt.io/KubeVirt" {
  degraded = condition(obj, "Degraded").status == "True"
  healthy  = obj.status.phase == "Deployed" && condition(obj, "Available").status == "True"
  message = coalesce(
    condition(obj, "Degraded").status == "True" ? condition(obj, "Degraded").message : null,
    condition(obj, "Available").status == "True" ? "KubeVirt ${obj.status.observedKubeVirtVersion} ${lower(obj.status.phase)}" : null,
    condition(obj, "Progressing").message,
    obj.status.phase,
    "waiting for virt-operator",
  )

  test "deployed" {
    object       = "testdata/kubevirt.io/KubeVirt/deployed.yaml"
    want         = "Healthy"
    want_message = "KubeVirt v1.3.1 deployed"
  }
  test "deploying" {
    object       = "testdata/kubevirt.io/KubeVirt/deploying.yaml"
    want         = "Progressing"
    want_message = "Deploying version v1.3.1 with registry quay.io/kubevirt"
  }
  test "new" {
    object       = "testdata/kubevirt.io/KubeVirt/new.yaml"
    want         = "Progressing"
    want_message = "waiting for virt-operator"
  }
  test "degraded" {
    object       = "testdata/kubevirt.io/KubeVirt/degraded.yaml"
    want         = "Degraded"
    want_message = "An error occurred during deployment: unable to create virt-handler daemonset: daemonsets.apps \"virt-handler\" is forbidden"
  }
}
