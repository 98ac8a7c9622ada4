# A version that comes from the environment is checked in every
# environment; the same finding in two of them is reported once.
platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

environment "staging" {
  grafana_version = "~8.5"
}

environment "production" {
  grafana_version = "8.5.2"
}

app "grafana" {
  namespace = "monitoring"
  source {
    chart    = "grafana"
    repo_url = "https://grafana.github.io/helm-charts"
    version  = env.grafana_version  # want `chart "grafana" version "~8.5" is a range`
  }
}
