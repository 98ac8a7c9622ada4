# The issue's case: Argo CD's cluster-admin controller in Argo CD's namespace.
platform "acme" {
  workflows {
    namespace       = "argocd" # want `workflows namespace "argocd" is Argo CD's namespace`
    service_account = "argocd-application-controller" # want `workflow service account "argocd-application-controller" in namespace "argocd" is Argo CD's application controller, cluster-admin`
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
