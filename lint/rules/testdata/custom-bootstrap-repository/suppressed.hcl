# A mirror someone runs on purpose says so.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
  bootstrap {
    # platc:ignore custom-bootstrap-repository -- air-gapped; the platform team mirrors argo-helm releases
    argo_repo = "oci://registry.internal.example.com/argo-helm"
  }
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
