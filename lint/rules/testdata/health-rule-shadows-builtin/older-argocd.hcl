# Argo CD ships a check for CloudNativePG's Cluster only from v3.1; this
# platform declares v3.0, so its own rule replaces nothing and is needed.
platform "acme" {
  argocd {
    version = "v3.0.12"
  }
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "pg" {
  namespace        = "databases"
  custom_resources = ["postgresql.cnpg.io/Cluster", "cert-manager.io/ClusterIssuer"]
}

health "postgresql.cnpg.io/Cluster" {
  healthy = condition(obj, "Ready").status == "True"
}

# v3.0 does ship this one.
health "cert-manager.io/ClusterIssuer" {  # want `health rule for "cert-manager.io/ClusterIssuer" replaces the health check Argo CD ships`
  healthy = condition(obj, "Ready").status == "True"
}
