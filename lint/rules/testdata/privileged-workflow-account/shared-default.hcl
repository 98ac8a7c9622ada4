# Argo CD in "argo", where the workflows go by default: reported on the
# platform, since no workflows attribute says it.
platform "acme" { # want `workflows namespace "argo" is Argo CD's namespace`
  argocd {
    namespace = "argo"
  }
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
