# lib-bucket-provisioner's ObjectBucketClaim (Rook, NooBaa): Healthy once
# the provisioner has bound the claim to a bucket. Argo CD ships a check
# only from v3.3.
health "objectbucket.io/ObjectBucketClaim" {
  degraded = obj.status.phase == "Failed"
  healthy  = obj.status.phase == "Bound"
  message  = "bucket claim ${coalesce(obj.status.phase, "not provisioned yet")}"

  test "bound" {
    object       = "testdata/objectbucket.io/ObjectBucketClaim/bound.yaml"
    want         = "Healthy"
    want_message = "bucket claim Bound"
  }
  test "pending" {
    object       = "testdata/objectbucket.io/ObjectBucketClaim/pending.yaml"
    want         = "Progressing"
    want_message = "bucket claim Pending"
  }
  test "failed" {
    object       = "testdata/objectbucket.io/ObjectBucketClaim/failed.yaml"
    want         = "Degraded"
    want_message = "bucket claim Failed"
  }
}
