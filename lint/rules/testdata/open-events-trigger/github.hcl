# GitHub without a webhook secret: signatures go unchecked.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
}

events { # want `github events trigger has no secret, so it accepts pushes without checking GitHub's signature`
  type       = "github"
  repository = "acme/platform"
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
