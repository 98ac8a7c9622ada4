# The Argo Workflows controller, installed in the workflows namespace.
platform "acme" {
  workflows {
    service_account = "argo-workflows-workflow-controller" # want `"argo-workflows-workflow-controller" in namespace "argo" is the Argo Workflows controller`
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
