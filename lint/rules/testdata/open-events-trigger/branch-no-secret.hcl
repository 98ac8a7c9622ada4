# The platform follows HEAD, but the events block filters on main: only the
# missing secret is reported.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "HEAD"
  }
}

events { # want `webhook events trigger has no secret`
  branch = "main"
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
