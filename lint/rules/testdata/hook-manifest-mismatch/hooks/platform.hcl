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
    manifest = "jobs/migrate.yaml"
  }

  hook "schema" {
    phase    = "PreSync"
    purpose  = "schema"
    manifest = "jobs/schema.yaml"  # want `hook "schema" is declared PreSync, but its manifest annotates another phase`
  }

  hook "seed" {
    phase    = "PostSync"
    purpose  = "init"
    manifest = "jobs/seed.yaml"  # want `no object in manifest "jobs/seed.yaml" is annotated as a PostSync hook`
  }

  hook "gone" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "jobs/gone.yaml"  # want `manifest "jobs/gone.yaml" of hook "gone" does not exist`
  }

  hook "helm" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "jobs/helm.yaml"
  }

  hook "broken" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "jobs/broken.yaml"  # want `manifest "jobs/broken.yaml" of hook "broken" is not valid YAML`
  }
  hook "bomb" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "jobs/bomb.yaml"  # want `manifest "jobs/bomb.yaml" of hook "bomb" uses aliases platc refuses to expand`
  }
}
