# Rules that exercise the whole language, for the differential test. They
# are not meant to be sensible health checks.

health "example.com/Everything" {
  degraded = (
    condition(obj, "Ready").status == "False" && condition(obj, "Ready").reason != "Progressing" ||
    contains(["Failed", "Error", "CrashLoopBackOff"], obj.status.phase) ||
    obj.status.readyReplicas < 0
  )
  healthy = (
    obj.status.readyReplicas >= coalesce(obj.spec.replicas, 1) &&
    !(obj.status.phase == "Pending") &&
    (obj.status.conditions[0].status == "True" || length(obj.status.conditions) == 0 || obj.status.ready == true)
  )
  suspended = obj.spec.suspend == true || startswith(lower(coalesce(obj.status.phase, "")), "pause")
  message   = "%{if obj.status.phase != null}${upper(obj.status.phase)}%{else}no phase%{endif}: ${obj.status.readyReplicas}/${obj.spec.replicas} ${condition(obj, "Ready").message} [${length(obj.status)} ${obj.metadata.name} ${obj.status.ready}]"
}

health "example.com/Strings" {
  healthy             = obj.status.message > "M" && obj.status.message <= "ready"
  degraded            = obj.status.message == obj.status.phase || obj.status.message != obj.status.phase && obj.status.phase == null
  message             = coalesce(obj.status.message, obj.status.phase, obj.metadata.generation, "none")
  observed_generation = false
}

health "example.com/Lists" {
  healthy  = contains([obj.status.phase, "Ready", null, 3], obj.status.state) || length([obj.a, obj.b, null]) == 2
  degraded = [obj.status.phase, "x"][0] == "Broken" || obj.status.conditions[1].type == obj.status.conditions[0].type
  message  = "${[obj.status.phase, "Ready"][1]} ${obj.status.conditions[2].message}"
}

health "example.com/Env" {
  healthy   = env.mode == "relaxed" ? obj.status.phase != "Failed" : obj.status.phase == "Ready"
  degraded  = contains(env.bad, obj.status.phase)
  suspended = obj.status.phase == platform.name
  message   = "${env.name}/${platform.name}: ${coalesce(env.missing, obj.status.phase, "-")}"
}
