# A managed cluster runs its own controller: suppressed with the reason.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "ceph-cluster" {
  namespace = "rook-ceph"
  source { path = "apps/ceph-cluster" }
  teardown {
    volumes = "snapshot"  # platc:ignore snapshot-without-controller -- the provider runs the snapshot controller
  }
}
