# The namespace's default account is every unnamed pod's.
platform "acme" {
  workflows {
    namespace       = "orchestration"
    service_account = "default" # want `"default" in namespace "orchestration" is the account of every pod in the namespace that names none`
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
