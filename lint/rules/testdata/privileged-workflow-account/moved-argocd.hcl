# Argo CD's namespace is whatever argocd.namespace says.
platform "acme" {
  argocd {
    namespace = "gitops"
  }
  workflows {
    namespace       = "gitops" # want `workflows namespace "gitops" is Argo CD's namespace`
    service_account = "argocd-server" # want `"argocd-server" in namespace "gitops" is an account of Argo CD's server`
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
