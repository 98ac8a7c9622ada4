platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
  bootstrap {
    argo_repo           = "https://charts.mirror.example.com/argo" # want `bootstrap argo_repo "https://charts.mirror.example.com/argo" is not the upstream "https://argoproj.github.io/argo-helm"`
    sealed_secrets_repo = "https://charts.example.net/sealed-secrets" # want `bootstrap sealed_secrets_repo "https://charts.example.net/sealed-secrets" is not the upstream`
  }
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
