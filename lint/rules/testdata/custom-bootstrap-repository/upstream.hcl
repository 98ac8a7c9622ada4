# Upstream written out, with or without a trailing slash, or left to the
# defaults: no finding.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
  bootstrap {
    argo_repo           = "https://argoproj.github.io/argo-helm/"
    sealed_secrets_repo = "https://bitnami-labs.github.io/sealed-secrets"
  }
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
