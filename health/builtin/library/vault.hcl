# Vault run by the Bank-Vaults operator (vault.banzaicloud.com/Vault).
#
# Why this kind: the RFC's Vault is a server the platform deploys and
# unseals, with a vault-operator app in front of it. Bank-Vaults is the
# operator that does exactly that (it runs Vault as a StatefulSet,
# initialises and unseals it); HashiCorp's Vault Secrets Operator only
# syncs secrets out of a Vault that already runs.
#
# The operator asks every Vault pod for /v1/sys/health and records the
# pods in status.nodes, the pod that is neither sealed nor a standby (so
# initialised, unsealed and active) in status.leader, and a Healthy
# condition that is True when a leader exists and every pod answered. A
# sealed or uninitialised Vault has no leader: Progressing, so the deploy
# waits for the unseal. Only a missing storage configuration is a
# Degraded Vault: the operator will not fix that by retrying.
health "vault.banzaicloud.com/Vault" {
  degraded = condition(obj, "Healthy").status == "False" && condition(obj, "Healthy").message == "storage configuration is missing"
  healthy  = condition(obj, "Healthy").status == "True" && obj.status.leader != ""
  message  = "%{if obj.status.leader != ""}active node ${obj.status.leader} of ${length(obj.status.nodes)}%{else}no active Vault node: sealed, not initialised or still starting%{endif}%{if condition(obj, "Healthy").error != ""} (${condition(obj, "Healthy").error})%{endif}%{if condition(obj, "Healthy").message != ""} (${condition(obj, "Healthy").message})%{endif}"

  test "unsealed-with-leader" {
    object       = "testdata/vault.banzaicloud.com/Vault/active.yaml"
    want         = "Healthy"
    want_message = "active node vault-0 of 3"
  }
  test "sealed" {
    object       = "testdata/vault.banzaicloud.com/Vault/sealed.yaml"
    want         = "Progressing"
    want_message = "no active Vault node: sealed, not initialised or still starting"
  }
  test "pod-unreachable" {
    object       = "testdata/vault.banzaicloud.com/Vault/pod-unreachable.yaml"
    want         = "Progressing"
    want_message = "active node vault-0 of 3 (Get \"https://vault-2.vault:8200/v1/sys/health\": dial tcp 10.42.3.17:8200: connect: connection refused)"
  }
  test "new" {
    object       = "testdata/vault.banzaicloud.com/Vault/new.yaml"
    want         = "Progressing"
    want_message = "no active Vault node: sealed, not initialised or still starting"
  }
  test "no-storage" {
    object       = "testdata/vault.banzaicloud.com/Vault/no-storage.yaml"
    want         = "Degraded"
    want_message = "no active Vault node: sealed, not initialised or still starting (storage configuration is missing)"
  }
}
