# Rook-Ceph. Argo CD ships a CephCluster check (v3.3+) that reports
# HEALTH_WARN as Degraded, and none for CephBlockPool or CephFilesystem
# (docs/health.md).

# CephCluster: Healthy when Rook reports the cluster Ready and Ceph reports
# HEALTH_OK (RFC 4.8 and 5.5).
#
# HEALTH_WARN is the small-cluster trap. Clusters with fewer hosts or OSDs
# than the pool size, a single mon, clock skew or too few placement groups
# sit in HEALTH_WARN for good, and every cluster passes through it while
# it comes up (placement groups peering, OSDs starting). Treating it as
# Degraded, as Argo CD does, makes `argocd app wait --health` fail fast on
# the transition during bring-up and never succeed on a small cluster;
# treating it as Healthy hides real warnings in production. The
# environment setting ceph_health_warn decides: "progressing" (default)
# waits for HEALTH_OK and says why in the message, "healthy" accepts
# warnings, "degraded" fails on them.
health "ceph.rook.io/CephCluster" {
  degraded = (
    obj.status.state == "Error" || obj.status.phase == "Failure" ||
    obj.status.ceph.health == "HEALTH_ERR" ||
    (obj.status.ceph.health == "HEALTH_WARN" && env.ceph_health_warn == "degraded")
  )
  # Rook sets phase Ready (Connected for an external cluster); releases
  # that only set state use Created or Connected.
  healthy = (
    (obj.status.phase != null ? contains(["Ready", "Connected"], obj.status.phase) : contains(["Created", "Connected"], obj.status.state)) &&
    (obj.status.ceph.health == "HEALTH_OK" || (obj.status.ceph.health == "HEALTH_WARN" && env.ceph_health_warn == "healthy"))
  )
  message = "Ceph ${coalesce(obj.status.ceph.health, "health not reported yet")}, cluster ${coalesce(obj.status.state, "not created yet")}%{if obj.status.message != ""}: ${obj.status.message}%{endif}%{if obj.status.ceph.health == "HEALTH_WARN" && coalesce(env.ceph_health_warn, "progressing") == "progressing"} (waiting for HEALTH_OK; set ceph_health_warn = \"healthy\" in the environment to accept HEALTH_WARN)%{endif}"

  test "healthy" {
    object       = "testdata/ceph.rook.io/CephCluster/argocd-healthy.yaml"
    want         = "Healthy"
    want_message = "Ceph HEALTH_OK, cluster Created: Cluster created successfully"
  }
  test "creating" {
    object       = "testdata/ceph.rook.io/CephCluster/argocd-state_creating.yaml"
    want         = "Progressing"
    want_message = "Ceph health not reported yet, cluster Creating: Cluster is being created"
  }
  test "no-status" {
    object       = "testdata/ceph.rook.io/CephCluster/argocd-no_status.yaml"
    want         = "Progressing"
    want_message = "Ceph health not reported yet, cluster not created yet"
  }
  test "error" {
    object       = "testdata/ceph.rook.io/CephCluster/argocd-degraded_error.yaml"
    want         = "Degraded"
    want_message = "Ceph HEALTH_ERR, cluster Error: Cluster has critical errors"
  }
  test "warn-waits-by-default" {
    object       = "testdata/ceph.rook.io/CephCluster/small-cluster-warn.yaml"
    want         = "Progressing"
    want_message = "Ceph HEALTH_WARN, cluster Created: Cluster created successfully (waiting for HEALTH_OK; set ceph_health_warn = \"healthy\" in the environment to accept HEALTH_WARN)"
    env          = { ceph_health_warn = "progressing" }
  }
  test "warn-accepted" {
    object       = "testdata/ceph.rook.io/CephCluster/small-cluster-warn.yaml"
    want         = "Healthy"
    want_message = "Ceph HEALTH_WARN, cluster Created: Cluster created successfully"
    env          = { ceph_health_warn = "healthy" }
  }
  test "warn-degraded" {
    object       = "testdata/ceph.rook.io/CephCluster/argocd-degraded_warn.yaml"
    want         = "Degraded"
    want_message = "Ceph HEALTH_WARN, cluster Created: Cluster has warnings"
    env          = { ceph_health_warn = "degraded" }
  }
  test "warn-without-phase-accepted" {
    object = "testdata/ceph.rook.io/CephCluster/argocd-degraded_warn.yaml"
    want   = "Healthy"
    env    = { ceph_health_warn = "healthy" }
  }
  test "spec-not-yet-observed" {
    object       = "testdata/ceph.rook.io/CephCluster/stale-generation.yaml"
    want         = "Progressing"
    want_message = "waiting for the controller to observe generation 4 (status is for generation 3)"
  }
}

# CephBlockPool: Rook sets phase Ready once the pool exists with its
# settings applied, Failure when creating or updating it failed (for
# example a failure domain of host with fewer hosts than replicas), and
# Progressing while it works.
health "ceph.rook.io/CephBlockPool" {
  degraded = obj.status.phase == "Failure"
  healthy  = obj.status.phase == "Ready"
  message  = "pool ${coalesce(obj.status.phase, "not reconciled yet")}%{if obj.status.poolID != null} (id ${obj.status.poolID})%{endif}"

  test "ready" {
    object       = "testdata/ceph.rook.io/CephBlockPool/ready.yaml"
    want         = "Healthy"
    want_message = "pool Ready (id 2)"
  }
  test "progressing" {
    object       = "testdata/ceph.rook.io/CephBlockPool/progressing.yaml"
    want         = "Progressing"
    want_message = "pool Progressing"
  }
  test "failure" {
    object       = "testdata/ceph.rook.io/CephBlockPool/failure.yaml"
    want         = "Degraded"
    want_message = "pool Failure"
  }
  test "new" {
    object       = "testdata/ceph.rook.io/CephBlockPool/new.yaml"
    want         = "Progressing"
    want_message = "pool not reconciled yet"
  }
}

# CephFilesystem: Ready once the metadata and data pools exist and the MDS
# daemons are deployed; Failure when Rook could not create them.
health "ceph.rook.io/CephFilesystem" {
  degraded = obj.status.phase == "Failure"
  healthy  = obj.status.phase == "Ready"
  message  = "filesystem ${coalesce(obj.status.phase, "not reconciled yet")}"

  test "ready" {
    object       = "testdata/ceph.rook.io/CephFilesystem/ready.yaml"
    want         = "Healthy"
    want_message = "filesystem Ready"
  }
  test "progressing" {
    object       = "testdata/ceph.rook.io/CephFilesystem/progressing.yaml"
    want         = "Progressing"
    want_message = "filesystem Progressing"
  }
  test "failure" {
    object       = "testdata/ceph.rook.io/CephFilesystem/failure.yaml"
    want         = "Degraded"
    want_message = "filesystem Failure"
  }
}

# CephObjectStore: Healthy when Rook reports the RGW object store Ready
# (Connected for an external one). Argo CD ships a check only from v3.3,
# so a platform on an older Argo CD would otherwise count the store as
# ready before its gateways are.
health "ceph.rook.io/CephObjectStore" {
  degraded = obj.status.phase == "Failure"
  healthy  = contains(["Ready", "Connected"], obj.status.phase)
  message  = "object store ${coalesce(obj.status.phase, "not reconciled yet")}%{if obj.status.info.endpoint != null} at ${obj.status.info.endpoint}%{endif}"

  test "ready" {
    object       = "testdata/ceph.rook.io/CephObjectStore/ready.yaml"
    want         = "Healthy"
    want_message = "object store Ready at http://rook-ceph-rgw-objects.rook-ceph.svc:80"
  }
  test "progressing" {
    object       = "testdata/ceph.rook.io/CephObjectStore/progressing.yaml"
    want         = "Progressing"
    want_message = "object store Progressing"
  }
  test "failure" {
    object       = "testdata/ceph.rook.io/CephObjectStore/failure.yaml"
    want         = "Degraded"
    want_message = "object store Failure"
  }
}
