# An exact version tag, behind a registry port: no finding.
platform "acme" {
  workflows {
    image = "registry.example.com:5000/platc:v1.4.0-alpine"
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
