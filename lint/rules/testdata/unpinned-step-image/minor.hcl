# A tag without major.minor.patch moves with each patch release.
platform "acme" {
  workflows {
    image = "quay.io/argoproj/argocd:v3.5" # want `has tag "v3.5", which is not an exact version`
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
