platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "cluster-issuers" {
  namespace        = "cert-manager"
  custom_resources = ["cert-manager.io/ClusterIssuer"]
}

app "ceph-cluster" {
  namespace        = "rook-ceph"
  class            = "storage-cluster"
  custom_resources = ["ceph.rook.io/CephCluster"]
}

app "widgets" {
  namespace        = "widgets"
  custom_resources = ["widgets.example.com/Widget"]
}

# Argo CD ships checks for these two.
health "cert-manager.io/ClusterIssuer" {  # want `health rule for "cert-manager.io/ClusterIssuer" replaces the health check Argo CD ships`
  healthy = condition(obj, "Ready").status == "True"
}

health "ceph.rook.io/CephCluster" {  # want `health rule for "ceph.rook.io/CephCluster" replaces`
  healthy  = obj.status.phase == "Ready"
  degraded = obj.status.ceph.health == "HEALTH_ERR"
}

# Nothing else checks this kind: the block is required, not a shadow.
health "widgets.example.com/Widget" {
  healthy = obj.status.ready == true
}
