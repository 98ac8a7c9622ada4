# Nothing floats: no findings.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "platform-v1.4.0"
  }
}

app "web" {
  namespace = "web"
  source {
    path            = "apps/web"
    target_revision = "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0"
  }
}
