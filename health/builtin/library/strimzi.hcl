# Strimzi KafkaNodePool (kafka.strimzi.io/KafkaNodePool). Argo CD checks
# Kafka, KafkaTopic, KafkaUser and others, but not node pools.
#
# A node pool has no Ready condition: the Kafka cluster's reconciliation
# writes the pool's status (node IDs, replicas, roles, observedGeneration)
# before it rolls the pods, and the Kafka resource's own Ready condition
# (which Argo CD checks) covers the brokers being up. So a pool is Healthy
# once Strimzi has accepted its current spec: the generation is observed
# and as many node IDs are assigned as replicas were asked for. Strimzi
# puts a Warning condition on a pool whose change it refused (a storage
# change it cannot make, or a scale-down that would lose partitions);
# the pool will not reach its spec until someone intervenes: Degraded.
health "kafka.strimzi.io/KafkaNodePool" {
  degraded = condition(obj, "Warning").status == "True" && contains(["KafkaStorage", "ScaleDownPreventionCheck"], condition(obj, "Warning").reason)
  healthy = (
    obj.status.observedGeneration == obj.metadata.generation &&
    obj.status.replicas == obj.spec.replicas &&
    length(obj.status.nodeIds) == obj.spec.replicas
  )
  message = coalesce(
    condition(obj, "Warning").status == "True" ? condition(obj, "Warning").message : null,
    obj.status.observedGeneration == null ? "waiting for Strimzi to reconcile the pool (is its Kafka resource using node pools?)" : null,
    "${coalesce(obj.status.replicas, 0)} of ${obj.spec.replicas} nodes assigned",
  )

  test "reconciled" {
    object       = "testdata/kafka.strimzi.io/KafkaNodePool/reconciled.yaml"
    want         = "Healthy"
    want_message = "3 of 3 nodes assigned"
  }
  test "new" {
    object       = "testdata/kafka.strimzi.io/KafkaNodePool/new.yaml"
    want         = "Progressing"
    want_message = "waiting for Strimzi to reconcile the pool (is its Kafka resource using node pools?)"
  }
  test "scaling-up" {
    object       = "testdata/kafka.strimzi.io/KafkaNodePool/scaling.yaml"
    want         = "Progressing"
    want_message = "waiting for the controller to observe generation 3 (status is for generation 2)"
  }
  test "scale-down-refused" {
    object       = "testdata/kafka.strimzi.io/KafkaNodePool/scale-down-prevented.yaml"
    want         = "Degraded"
    want_message = "Reverting scale-down of KafkaNodePool brokers by changing number of replicas to 3"
  }
}
