# A digest pins the image whatever the tag says: no finding.
platform "acme" {
  workflows {
    image = "registry.example.com/platc:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
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
