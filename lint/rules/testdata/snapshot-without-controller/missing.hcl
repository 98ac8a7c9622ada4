platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

stack "data" {
  teardown {
    volumes = "snapshot"
  }

  # The policy comes from the stack: reported on the app name.
  app "postgres" {  # want `teardown snapshots the volumes of app "postgres", but the platform deploys no snapshot controller`
    namespace = "databases"
    source { path = "apps/postgres" }
  }

  app "vault" {
    namespace = "vault"
    source { path = "apps/vault" }
    teardown {
      volumes = "retain"
    }
  }
}

app "ceph-cluster" {
  namespace = "rook-ceph"
  source { path = "apps/ceph-cluster" }
  teardown {
    volumes = "snapshot"  # want `teardown snapshots the volumes of app "ceph-cluster"`
  }
}
