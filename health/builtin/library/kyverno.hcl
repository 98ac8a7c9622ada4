# Kyverno ClusterPolicy. Argo CD v3.5 checks kyverno.io/Policy but not
# ClusterPolicy; this rule gives a ClusterPolicy the same meaning.
#
# Kyverno sets the Ready condition True once the policy is loaded and its
# webhooks are configured, and False with reason Failed when it cannot
# serve the policy (for example a rule that does not load). Kyverno
# before 1.9 only wrote status.ready.
health "kyverno.io/ClusterPolicy" {
  degraded = condition(obj, "Ready").status == "False"
  healthy  = condition(obj, "Ready").status == "True" || (condition(obj, "Ready") == null && obj.status.ready == true)
  message  = coalesce(condition(obj, "Ready").message, obj.status.ready == true ? "Ready" : null, "waiting for Kyverno to load the policy")

  test "ready" {
    object       = "testdata/kyverno.io/ClusterPolicy/ready.yaml"
    want         = "Healthy"
    want_message = "Ready"
  }
  test "ready-before-kyverno-1.9" {
    object       = "testdata/kyverno.io/ClusterPolicy/ready-legacy.yaml"
    want         = "Healthy"
    want_message = "Ready"
  }
  test "not-loaded-yet" {
    object       = "testdata/kyverno.io/ClusterPolicy/new.yaml"
    want         = "Progressing"
    want_message = "waiting for Kyverno to load the policy"
  }
  test "failed" {
    object       = "testdata/kyverno.io/ClusterPolicy/failed.yaml"
    want         = "Degraded"
    want_message = "policy is not ready: some rules failed to load"
  }
}
