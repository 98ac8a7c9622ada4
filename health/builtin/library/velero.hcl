# Velero BackupStorageLocation (velero.io/BackupStorageLocation). Argo CD
# has no check for it.
#
# Velero validates each location periodically: phase Available when it can
# reach the bucket, Unavailable (with a message since Velero 1.10) when it
# cannot. Until the first validation there is no phase.
health "velero.io/BackupStorageLocation" {
  degraded = obj.status.phase == "Unavailable"
  healthy  = obj.status.phase == "Available"
  message  = coalesce(obj.status.message, obj.status.phase, "waiting for Velero to validate the location")
  # A BackupStorageLocation's status has no observedGeneration.

  test "available" {
    object       = "testdata/velero.io/BackupStorageLocation/available.yaml"
    want         = "Healthy"
    want_message = "Available"
  }
  test "not-validated-yet" {
    object       = "testdata/velero.io/BackupStorageLocation/new.yaml"
    want         = "Progressing"
    want_message = "waiting for Velero to validate the location"
  }
  test "unavailable" {
    object       = "testdata/velero.io/BackupStorageLocation/unavailable.yaml"
    want         = "Degraded"
    want_message = "BackupStorageLocation \"ceph\" is unavailable: rpc error: code = Unknown desc = NoSuchBucket: The specified bucket does not exist"
  }
}
