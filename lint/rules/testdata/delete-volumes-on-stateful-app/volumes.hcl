platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

defaults {
  teardown {
    volumes = "delete"
  }
}

stack "data" {
  # The policy comes from the defaults block: reported on the app name.
  app "postgres-clusters" {  # want `teardown deletes the volumes of app "postgres-clusters", which holds data \(class "database-cluster"\)`
    namespace = "databases"
    class     = "database-cluster"
  }

  app "vault" {
    namespace = "vault"
    class     = "vault"
    teardown {
      volumes = "delete"  # want `teardown deletes the volumes of app "vault"`
    }
  }

  app "ceph-cluster" {
    namespace = "rook-ceph"
    class     = "storage-cluster"
    teardown {
      volumes = "snapshot"
    }
  }

  # Stateless: deleting its volumes is fine.
  app "grafana" {
    namespace = "monitoring"
  }
}
