# Redis clusters run by the OT-CONTAINER-KIT redis-operator
# (redis.redis.opstreelabs.in/RedisCluster). Argo CD has no check for it.
#
# The operator sets state Ready once every leader and follower is ready
# and `redis-cli --cluster check` passes, Failed when the cluster has
# unhealthy nodes (v0.19+), and Initializing or Bootstrap while it builds
# the cluster; reason says which step it is at.
health "redis.redis.opstreelabs.in/RedisCluster" {
  degraded = obj.status.state == "Failed"
  healthy  = obj.status.state == "Ready"
  message  = "%{if obj.status.reason != ""}${obj.status.reason}%{else}waiting for the operator to report the cluster state%{endif}%{if obj.status.state != null} (${coalesce(obj.status.readyLeaderReplicas, 0)} leaders and ${coalesce(obj.status.readyFollowerReplicas, 0)} followers ready)%{endif}"
  # The operator does not write status.observedGeneration.

  test "ready" {
    object       = "testdata/redis.redis.opstreelabs.in/RedisCluster/ready.yaml"
    want         = "Healthy"
    want_message = "RedisCluster is ready (3 leaders and 3 followers ready)"
  }
  test "bootstrapping" {
    object       = "testdata/redis.redis.opstreelabs.in/RedisCluster/bootstrap.yaml"
    want         = "Progressing"
    want_message = "RedisCluster is bootstrapping (3 leaders and 0 followers ready)"
  }
  test "new" {
    object       = "testdata/redis.redis.opstreelabs.in/RedisCluster/new.yaml"
    want         = "Progressing"
    want_message = "waiting for the operator to report the cluster state"
  }
  test "unhealthy-nodes" {
    object       = "testdata/redis.redis.opstreelabs.in/RedisCluster/failed.yaml"
    want         = "Degraded"
    want_message = "RedisCluster has unhealthy nodes (3 leaders and 2 followers ready)"
  }
}
