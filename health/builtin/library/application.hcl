# Nested Application health (RFC 5.5).
#
# Argo CD stopped assessing the health of Application resources in 1.8
# (argo-cd issue #3781), so an app of apps shows Healthy while its children
# are Degraded, and sync waves on Application objects stop waiting for
# their health. This rule restores it: a child Application's own health
# becomes its health as a resource. platc always emits it.
#
# Missing and Unknown map to Progressing: an Application created without
# automated sync (INV-2) is Missing until its first sync, and the parent
# should wait for it rather than fail.
health "argoproj.io/Application" {
  degraded  = obj.status.health.status == "Degraded"
  healthy   = obj.status.health.status == "Healthy"
  suspended = obj.status.health.status == "Suspended"
  message = coalesce(
    obj.status.health.message,
    contains(["Missing", "Unknown"], obj.status.health.status) ? "application health is ${obj.status.health.status}" : null,
    obj.status.health == null ? "waiting for Argo CD to assess the application" : null,
  )
  # An Application has no status.observedGeneration.
  observed_generation = false

  test "healthy" {
    object       = "testdata/argoproj.io/Application/healthy.yaml"
    want         = "Healthy"
    want_message = ""
  }
  test "progressing" {
    object       = "testdata/argoproj.io/Application/progressing.yaml"
    want         = "Progressing"
    want_message = ""
  }
  test "degraded" {
    object       = "testdata/argoproj.io/Application/degraded.yaml"
    want         = "Degraded"
    want_message = "Deployment \"keycloak\" exceeded its progress deadline"
  }
  test "suspended" {
    object       = "testdata/argoproj.io/Application/suspended.yaml"
    want         = "Suspended"
    want_message = ""
  }
  test "missing-before-first-sync" {
    object       = "testdata/argoproj.io/Application/missing.yaml"
    want         = "Progressing"
    want_message = "application health is Missing"
  }
  test "no-status" {
    object       = "testdata/argoproj.io/Application/no-status.yaml"
    want         = "Progressing"
    want_message = "waiting for Argo CD to assess the application"
  }
}
