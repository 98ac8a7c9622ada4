platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "harbor" {
  namespace = "harbor"

  hook "migrate" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "scan/migrate.yaml"
  }
}
