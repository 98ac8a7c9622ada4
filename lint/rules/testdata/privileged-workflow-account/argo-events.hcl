# Argo Events' namespace, with platc's own account name.
platform "acme" {
  workflows {
    namespace = "argo-events" # want `workflows namespace "argo-events" is Argo Events' namespace`
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
