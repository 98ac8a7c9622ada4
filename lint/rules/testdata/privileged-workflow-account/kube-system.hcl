# kube-system holds the sealed-secrets controller.
platform "acme" {
  workflows {
    namespace       = "kube-system" # want `workflows namespace "kube-system" is kube-system`
    service_account = "sealed-secrets-controller" # want `"sealed-secrets-controller" in namespace "kube-system" is the sealed-secrets controller`
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
