# The piraeus chart deploys the controller: nothing to report.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "csi-snapshots" {
  namespace = "kube-system"
  source {
    chart    = "snapshot-controller"
    repo_url = "https://piraeus.io/helm-charts/"
    version  = "3.0.6"
  }
}

app "ceph-cluster" {
  namespace = "rook-ceph"
  source { path = "apps/ceph-cluster" }
  teardown {
    volumes = "snapshot"
  }
}
