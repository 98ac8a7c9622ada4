# :latest moves with every push.
platform "acme" {
  workflows {
    image = "quay.io/argoproj/argocd:latest" # want `step image "quay.io/argoproj/argocd:latest" is :latest, which moves with every push`
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
