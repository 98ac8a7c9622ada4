platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "ceph-cluster" {
  namespace        = "rook-ceph"
  custom_resources = ["ceph.rook.io/CephCluster"]  # want `app "ceph-cluster" manages ceph.rook.io/CephCluster with 5m/5m sync/health timeouts; class "storage-cluster" allows 30m/30m`
}

app "postgres" {
  namespace        = "databases"
  class            = "operator"
  custom_resources = ["cert-manager.io/Certificate", "acid.zalan.do/postgresql"]  # want `manages acid.zalan.do/postgresql with 10m/10m`
}

# Long enough timeouts of its own: fine without the class.
app "kafka" {
  namespace        = "kafka"
  custom_resources = ["kafka.strimzi.io/Kafka"]
  timeouts {
    sync   = "15m"
    health = "20m"
  }
}

# Health long enough but sync short: still reported.
app "object-store" {
  namespace        = "rook-ceph"
  custom_resources = ["ceph.rook.io/CephObjectStore"]  # want `manages ceph.rook.io/CephObjectStore with 5m/30m`
  timeouts {
    health = "30m"
  }
}

# A slow class is short-timeout-slow-class's business.
app "ceph-cluster-2" {
  namespace        = "rook-ceph-2"
  class            = "storage-cluster"
  custom_resources = ["ceph.rook.io/CephCluster"]
}

# Not a slow kind.
app "issuers" {
  namespace        = "cert-manager"
  custom_resources = ["cert-manager.io/ClusterIssuer"]
}
