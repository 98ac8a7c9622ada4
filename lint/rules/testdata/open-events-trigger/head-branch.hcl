# A secret, but branch HEAD: every push triggers.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
}

events {
  branch = "HEAD" # want `events branch "HEAD" names no ref, so a push to any branch or tag starts a deploy`
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
