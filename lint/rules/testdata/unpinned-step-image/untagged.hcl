# No tag means :latest; the colon of a registry port is not a tag.
platform "acme" {
  workflows {
    image = "registry.example.com:5000/platc" # want `step image "registry.example.com:5000/platc" has no tag, so it means :latest`
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
