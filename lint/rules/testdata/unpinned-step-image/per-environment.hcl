# The image may differ between environments; each is judged.
platform "acme" {
  workflows {
    image = "registry.example.com/platc:${env.step_tag}" # want `step image "registry.example.com/platc:edge" has tag "edge"`
  }
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.4.0"
  }
}

environment "staging" {
  step_tag = "edge"
}

environment "production" {
  step_tag = "v1.4.0"
}

app "web" {
  namespace = "web"
  source {
    path = "apps/web"
  }
}
