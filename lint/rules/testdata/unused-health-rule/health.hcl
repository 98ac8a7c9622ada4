platform "acme" {
  git {
    repo_url = "https://git.example.com/platform.git"
    revision = "v1.0.0"
  }
}

app "vault" {
  namespace        = "vault"
  custom_resources = ["vault.banzaicloud.com/Vault"]
}

health "vault.banzaicloud.com/Vault" {
  healthy = obj.status.nodes != null
}

# A kind no app lists, spelt close to one that is listed.
health "vault.banzaicloud.com/Vaults" {  # want `health rule for "vault.banzaicloud.com/Vaults" is used by no app`
  healthy = obj.status.nodes != null
}

health "temporal.io/TemporalCluster" {  # want `health rule for "temporal.io/TemporalCluster" is used by no app`
  healthy = condition(obj, "Ready").status == "True"
}

# platc always emits the Application rule (RFC 5.5), whether or not an app
# lists the kind.
health "argoproj.io/Application" {
  healthy = obj.status.health.status == "Healthy"
}
