platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "metallb" {}

app "metallb-config" {
  depends_on = [app.metallb]
}

app "ingress-nginx" {
  depends_on = [app.metallb, app.metallb-config]  # want `dependency on app.metallb is already implied by app.metallb-config`
}

app "storage-classes" {}

app "postgres-clusters" {
  depends_on = [app.storage-classes]
}

app "redis-clusters" {}

# Implied through a longer path: harbor → postgres-clusters → storage-classes.
app "harbor" {
  depends_on = [app.postgres-clusters, app.redis-clusters, app.storage-classes, app.ingress-nginx]  # want `dependency on app.storage-classes is already implied by app.postgres-clusters`
}

# Listed twice.
app "grafana" {
  depends_on = [app.redis-clusters, app.redis-clusters]  # want `dependency on app.redis-clusters is listed twice`
}

# Two independent dependencies: nothing to report.
app "backstage" {
  depends_on = [app.postgres-clusters, app.ingress-nginx]
}
