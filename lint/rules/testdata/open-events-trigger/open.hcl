# The issue's case: no secret, and the revision left at HEAD.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
  }
}

events { # want `webhook events trigger has no secret, so it accepts pushes without checking a bearer token` `events branch is not set and the platform revision is "HEAD"`
  type = "webhook"
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
