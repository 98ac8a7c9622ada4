platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "postgres-clusters" {
  namespace = "databases"
  class     = "database-cluster"
  sync {
    automated = true
    prune     = true  # want `automated sync prunes app "postgres-clusters", which holds data \(class "database-cluster"\)`
  }
}

# Prune implies automated sync.
app "ceph-cluster" {
  namespace        = "rook-ceph"
  custom_resources = ["ceph.rook.io/CephCluster"]
  timeouts {
    sync   = "30m"
    health = "30m"
  }
  sync {
    prune = true  # want `prunes app "ceph-cluster", which holds data \(ceph.rook.io/CephCluster\)`
  }
}

# Stateless apps may prune.
app "grafana" {
  namespace = "monitoring"
  sync {
    automated = true
    prune     = true
  }
}

# Data apps without prune are fine.
app "vault" {
  namespace = "vault"
  class     = "vault"
  sync {
    automated = true
    self_heal = true
  }
}
