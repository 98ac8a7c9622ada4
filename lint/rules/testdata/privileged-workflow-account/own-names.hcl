# Names only platc uses, as in docs/language.md: no finding. Argo CD's account names mean nothing outside its namespace.
platform "acme" {
  workflows {
    namespace       = "orchestration"
    service_account = "argocd-application-controller"
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
