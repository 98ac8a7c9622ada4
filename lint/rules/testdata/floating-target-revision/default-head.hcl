# Without a revision the platform deploys HEAD.
platform "acme" {
  git {  # want `platform git revision is not set, so it defaults to "HEAD", which follows the last push`
    repo_url = "https://git.example.com/platform.git"
  }
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
