platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
  argocd {
    namespace = "gitops"
  }
}

app "metallb" {  # want `app "metallb" has no source: it adopts the existing Application "metallb" in namespace "gitops"`
  namespace = "metallb-system"
}

app "vault" {  # want `app "vault" has no source: it adopts the existing Application "security-vault" in namespace "gitops"`
  namespace   = "vault"
  application = "security-vault"
}

app "harbor" {
  namespace = "harbor"
  source {
    chart    = "harbor"
    repo_url = "https://helm.goharbor.io"
    version  = "1.16.0"
  }
}
