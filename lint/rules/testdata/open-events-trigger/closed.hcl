# A secret and a ref filter on the deployed tag: no finding.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
}

events {
  secret {
    name = "platform-webhook"
    key  = "token"
  }
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
