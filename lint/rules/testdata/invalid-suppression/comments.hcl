platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "storage-classes" {}

app "postgres-clusters" {
  depends_on = [app.storage-classes]
}

app "harbor" {
  # A well-formed suppression on the line above silences the notice.
  # platc:ignore redundant-dependency -- harbor's registry PVCs use storage classes directly
  depends_on = [app.postgres-clusters, app.storage-classes]
}

app "grafana" {
  namespace = "monitoring"
  source {
    chart    = "grafana"
    repo_url = "https://grafana.github.io/helm-charts"
    version  = "8.x" // platc:ignore unpinned-chart-version -- tracked in PLAT-123 until 9.0 ships
  }
}

app "loki" {
  namespace = "monitoring"
  source {
    chart    = "loki"
    repo_url = "https://grafana.github.io/helm-charts"
    # want +1 `suppression gives no reason` `chart "loki" version "6.x" is a range`
    version  = "6.x"  # platc:ignore unpinned-chart-version
  }
}

app "tempo" {
  namespace = "monitoring"
  source {
    chart    = "tempo-distributed"
    repo_url = "https://grafana.github.io/helm-charts"
    version  = "1.18.2"  # platc:ignore unpinned-chart-version -- was a range once # want `suppression of "unpinned-chart-version" matched no finding`
  }
}

app "alloy" {
  namespace = "monitoring"
  # platc:ignore unpined-chart-version -- typo in the rule name # want `suppression names unknown rule "unpined-chart-version"`
  source {
    chart    = "alloy"
    repo_url = "https://grafana.github.io/helm-charts"
    version  = "0.9.1"
  }
}

# want +1 `suppression names no rule`
# platc:ignore -- nothing named
app "mimir" {}

# A rule that did not run (app-outside-stack is off) is not "unused".
# platc:ignore app-outside-stack -- kept at top level on purpose
app "kargo" {}
