# The platform of RFC-DEPLOY-0001: 43 apps in 11 stacks.
#
# Dependencies follow the RFC's layer table (section 5.2). "Foundation" in
# that table means MetalLB, cert-manager and sealed-secrets. Expected
# durations follow the RFC's layer timings (section 3.8.2); timeouts follow
# its per-type defaults (section 3.8.5) through the built-in classes:
#   simple 5m/5m, operator 10m/10m, storage-cluster 30m/30m,
#   database-cluster 15m/15m, vault 15m/15m.
#
# The RFC lists nine stacks by name and counts eleven; object-storage and
# backup are the two it does not name (Loki, Tempo and Velero keep their
# data in Ceph's object store).

platform "acme" {
  argocd {
    namespace = "argocd"
    project   = "platform"
    version   = "v3.2.6" # what argo-cd chart 9.3.7 installs; the bootstrap checks they agree
  }
  workflows {
    namespace       = "argo"
    service_account = "platform-orchestrator"
    parallelism     = 10
  }
  git {
    repo_url = "https://git.example.com/platform/platform.git"
    revision = "platform-v1.4.0"
    path     = "generated"
  }
  bootstrap {
    argocd_chart         = "9.3.7"
    workflows_chart      = "0.45.0"
    events_chart         = "2.4.9"
    sealed_secrets_chart = "2.16.2"
  }
}

environment "production" {
  domain       = "prod.example.com"
  cluster_name = "prod-1"
  # What Ceph's HEALTH_WARN means for the built-in CephCluster health rule:
  # "progressing" (the default) waits for HEALTH_OK; a small lab cluster
  # that never leaves HEALTH_WARN would set "healthy" (docs/health.md).
  ceph_health_warn = "progressing"
}

defaults {
  timeouts {
    sync   = "5m"
    health = "5m"
  }
  retry {
    limit       = 2
    backoff     = "30s"
    factor      = 2
    max_backoff = "5m"
  }
  teardown {
    volumes = "retain"
    timeout = "15m"
  }
}

# The Git host must present the token in Secret platform-webhook (created
# by hand in the argo namespace; platc never sees its value) as a bearer
# token: without it anyone who reaches the webhook could start deploys.
events {
  type     = "webhook"
  endpoint = "/push"
  port     = 12000
  secret {
    name = "platform-webhook"
    key  = "token"
  }
}

# Layers 0 and 2: foundation and core infrastructure.
stack "infrastructure" {
  description = "Load balancing, ingress, TLS, DNS and sealed secrets"

  app "metallb" {
    namespace         = "metallb-system"
    class             = "operator"
    expected_duration = "2m"
    source {
      chart    = "metallb"
      repo_url = "https://metallb.github.io/metallb"
      version  = "0.14.8"
    }
    sync {
      automated = true
      self_heal = true
    }
  }

  app "metallb-config" {
    namespace         = "metallb-system"
    depends_on        = [app.metallb]
    expected_duration = "1m"
    custom_resources  = ["metallb.io/IPAddressPool", "metallb.io/L2Advertisement"]
    source {
      path = "apps/metallb-config"
      helm {
        values = {
          addressPool = "10.20.0.100-10.20.0.150"
        }
      }
    }
  }

  app "cert-manager" {
    namespace         = "cert-manager"
    class             = "operator"
    expected_duration = "2m"
    source {
      chart    = "cert-manager"
      repo_url = "https://charts.jetstack.io"
      version  = "v1.16.1"
      helm {
        values = {
          crds = { enabled = true }
        }
      }
    }
    sync {
      automated = true
      self_heal = true
    }
  }

  app "cluster-issuers" {
    namespace         = "cert-manager"
    depends_on        = [app.cert-manager]
    expected_duration = "1m"
    custom_resources  = ["cert-manager.io/ClusterIssuer"]
    source {
      path = "apps/cluster-issuers"
      helm {
        values = {
          acmeEmail = "platform@${env.domain}"
        }
      }
    }
  }

  # The bootstrap installs this same release (chart, namespace and release
  # name) so sealed secrets can be decrypted before anything else syncs;
  # syncing it here hands the identical objects over to Argo CD.
  app "sealed-secrets" {
    namespace         = "kube-system"
    expected_duration = "2m"
    source {
      chart    = "sealed-secrets"
      repo_url = "https://bitnami-labs.github.io/sealed-secrets"
      version  = "2.16.2"
      helm {
        release_name = "sealed-secrets-controller"
      }
    }
  }

  app "ingress-nginx" {
    namespace = "ingress-nginx"
    # platc:ignore redundant-dependency -- the LoadBalancer Service needs metallb's controller itself, not only its address pool
    depends_on        = [app.metallb, app.metallb-config]
    expected_duration = "3m"
    source {
      chart    = "ingress-nginx"
      repo_url = "https://kubernetes.github.io/ingress-nginx"
      version  = "4.11.3"
      helm {
        values = {
          controller = {
            replicaCount = 2
            service      = { type = "LoadBalancer" }
          }
        }
      }
    }
    sync {
      automated = true
      self_heal = true
    }
  }

  app "external-dns" {
    namespace         = "external-dns"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "2m"
    source {
      chart    = "external-dns"
      repo_url = "https://kubernetes-sigs.github.io/external-dns"
      version  = "1.15.0"
      helm {
        values = {
          domainFilters = [env.domain]
          txtOwnerId    = env.cluster_name
        }
      }
    }
  }
}

# Layer 1: storage. The Ceph chain is the platform's critical path.
stack "storage" {
  description = "Ceph, and the operators of the platform's databases"

  app "ceph-operator" {
    namespace         = "rook-ceph"
    class             = "operator"
    depends_on        = [app.metallb]
    expected_duration = "3m"
    source {
      chart    = "rook-ceph"
      repo_url = "https://charts.rook.io/release"
      version  = "v1.15.3"
    }
  }

  app "ceph-cluster" {
    namespace        = "rook-ceph"
    class            = "storage-cluster"
    depends_on       = [app.ceph-operator]
    custom_resources = ["ceph.rook.io/CephCluster"]
    source {
      chart    = "rook-ceph-cluster"
      repo_url = "https://charts.rook.io/release"
      version  = "v1.15.3"
      helm {
        values = {
          operatorNamespace = "rook-ceph"
          cephClusterSpec = {
            dashboard = { enabled = true }
          }
        }
      }
    }
    teardown {
      volumes = "snapshot"
      timeout = "45m"
    }
  }

  # A CephFilesystem waits for its metadata servers: storage-cluster
  # timeouts (30m/30m), though it usually takes minutes.
  app "storage-classes" {
    namespace         = "rook-ceph"
    class             = "storage-cluster"
    depends_on        = [app.ceph-cluster]
    expected_duration = "3m"
    custom_resources  = ["ceph.rook.io/CephBlockPool", "ceph.rook.io/CephFilesystem"]
    source {
      path = "apps/storage-classes"
    }
  }

  app "postgres-operator" {
    namespace         = "postgres-operator"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "3m"
    source {
      chart    = "postgres-operator"
      repo_url = "https://opensource.zalando.com/postgres-operator/charts/postgres-operator"
      version  = "1.13.0"
    }
  }

  app "redis-operator" {
    namespace         = "redis-operator"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "2m"
    source {
      chart    = "redis-operator"
      repo_url = "https://ot-container-kit.github.io/helm-charts"
      version  = "0.18.3"
    }
  }
}

# Object storage on Ceph, for logs, traces and backups.
stack "object-storage" {
  description = "Ceph object store and the buckets other stacks claim"
  depends_on  = [app.ceph-cluster]

  app "ceph-object-store" {
    namespace         = "rook-ceph"
    class             = "storage-cluster"
    expected_duration = "6m"
    custom_resources  = ["ceph.rook.io/CephObjectStore"]
    source {
      path = "apps/ceph-object-store"
    }
    teardown {
      volumes = "snapshot"
    }
  }

  app "object-buckets" {
    namespace         = "rook-ceph"
    depends_on        = [app.ceph-object-store]
    expected_duration = "1m"
    custom_resources  = ["objectbucket.io/ObjectBucketClaim"]
    source {
      path = "apps/object-buckets"
    }
  }
}

# Layer 3: security.
stack "security" {
  description = "Secrets, identity, policy and runtime security"

  app "vault-operator" {
    namespace         = "vault"
    class             = "operator"
    depends_on        = [app.cert-manager]
    expected_duration = "2m"
    source {
      path = "apps/vault-operator"
    }
  }

  # Vault run by the Bank-Vaults operator, which initialises and unseals it.
  app "vault" {
    namespace        = "vault"
    class            = "vault"
    depends_on       = [app.vault-operator, app.storage-classes, app.ingress-nginx]
    custom_resources = ["vault.banzaicloud.com/Vault"]
    source {
      path = "apps/vault"
      helm {
        values = {
          ui = { host = "vault.${env.domain}" }
        }
      }
    }
    teardown {
      volumes = "snapshot"
    }
  }

  app "external-secrets-operator" {
    namespace         = "external-secrets"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "2m"
    source {
      chart    = "external-secrets"
      repo_url = "https://charts.external-secrets.io"
      version  = "0.10.4"
    }
  }

  app "external-secrets" {
    namespace         = "external-secrets"
    depends_on        = [app.vault, app.external-secrets-operator]
    expected_duration = "1m"
    custom_resources  = ["external-secrets.io/ClusterSecretStore"]
    source {
      path = "apps/cluster-secret-stores"
    }
  }

  app "keycloak-operator" {
    namespace         = "keycloak"
    class             = "operator"
    depends_on        = [app.cert-manager]
    expected_duration = "2m"
    source {
      path = "apps/keycloak-operator"
    }
  }

  app "keycloak" {
    namespace         = "keycloak"
    depends_on        = [app.keycloak-operator, app.postgres-clusters, app.ingress-nginx]
    expected_duration = "5m"
    custom_resources  = ["k8s.keycloak.org/Keycloak"]
    source {
      path = "apps/keycloak"
      helm {
        values = {
          hostname = "sso.${env.domain}"
        }
      }
    }
  }

  app "kyverno" {
    namespace         = "kyverno"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "3m"
    source {
      chart    = "kyverno"
      repo_url = "https://kyverno.github.io/kyverno"
      version  = "3.2.7"
    }
  }

  app "kyverno-policies" {
    namespace         = "kyverno"
    depends_on        = [app.kyverno]
    expected_duration = "1m"
    custom_resources  = ["kyverno.io/ClusterPolicy"]
    source {
      path = "apps/kyverno-policies"
    }
  }

  app "falco" {
    namespace         = "falco"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "3m"
    source {
      chart    = "falco"
      repo_url = "https://falcosecurity.github.io/charts"
      version  = "4.11.1"
    }
  }
}

# Layer 4: data.
stack "platform-data" {
  description = "Shared PostgreSQL and Redis clusters"

  app "postgres-clusters" {
    namespace         = "databases"
    class             = "database-cluster"
    depends_on        = [app.postgres-operator, app.storage-classes]
    custom_resources  = ["acid.zalan.do/postgresql"]
    expected_duration = "8m"
    source {
      path = "apps/postgres-clusters"
    }
    teardown {
      volumes = "snapshot"
    }
  }

  app "redis-clusters" {
    namespace         = "databases"
    class             = "database-cluster"
    depends_on        = [app.redis-operator]
    expected_duration = "5m"
    custom_resources  = ["redis.redis.opstreelabs.in/RedisCluster"]
    source {
      path = "apps/redis-clusters"
    }
  }
}

# Layer 5: platform services.
stack "monitoring" {
  description = "Metrics, dashboards, logs and traces"

  app "prometheus" {
    namespace         = "monitoring"
    depends_on        = [app.storage-classes]
    expected_duration = "6m"
    custom_resources  = ["monitoring.coreos.com/Prometheus"]
    timeouts {
      sync   = "10m"
      health = "10m"
    }
    source {
      chart    = "kube-prometheus-stack"
      repo_url = "https://prometheus-community.github.io/helm-charts"
      version  = "65.1.1"
      helm {
        values = {
          grafana = { enabled = false }
        }
      }
    }
    # The operator's admission webhooks get their CA bundle from a Job
    # after the sync; Argo CD would report them OutOfSync for ever.
    ignore_differences {
      group               = "admissionregistration.k8s.io"
      kind                = "MutatingWebhookConfiguration"
      jq_path_expressions = [".webhooks[]?.clientConfig.caBundle"]
    }
    ignore_differences {
      group               = "admissionregistration.k8s.io"
      kind                = "ValidatingWebhookConfiguration"
      jq_path_expressions = [".webhooks[]?.clientConfig.caBundle"]
    }
    sync {
      automated = true
      self_heal = true
      options   = ["ServerSideApply=true"]
    }
  }

  app "grafana" {
    namespace         = "monitoring"
    depends_on        = [app.prometheus, app.ingress-nginx]
    expected_duration = "3m"
    # The chart from its Helm repository, its values from this
    # repository: the dashboards the team reviews with the platform.
    source {
      chart    = "grafana"
      repo_url = "https://grafana.github.io/helm-charts"
      version  = "8.5.2"
      helm {
        value_files = ["$values/values/grafana.yaml"]
        values = {
          ingress = {
            enabled = true
            hosts   = ["grafana.${env.domain}"]
          }
        }
      }
    }
    source {
      ref = "values"
    }
  }

  app "loki" {
    namespace         = "monitoring"
    depends_on        = [app.storage-classes, app.object-buckets]
    expected_duration = "5m"
    source {
      chart    = "loki"
      repo_url = "https://grafana.github.io/helm-charts"
      version  = "6.16.0"
    }
  }

  app "tempo" {
    namespace         = "monitoring"
    depends_on        = [app.storage-classes, app.object-buckets]
    expected_duration = "4m"
    source {
      chart    = "tempo-distributed"
      repo_url = "https://grafana.github.io/helm-charts"
      version  = "1.18.2"
    }
  }
  app "alloy" {
    namespace         = "monitoring"
    depends_on        = [app.loki, app.tempo]
    expected_duration = "2m"
    source {
      chart    = "alloy"
      repo_url = "https://grafana.github.io/helm-charts"
      version  = "0.9.1"
    }
  }
}

# Data streaming.
stack "data-streaming" {
  description = "Kafka on Strimzi"

  app "strimzi-operator" {
    namespace         = "kafka"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "2m"
    source {
      chart    = "strimzi-kafka-operator"
      repo_url = "https://strimzi.io/charts/"
      version  = "0.43.0"
    }
  }

  app "kafka" {
    namespace         = "kafka"
    class             = "database-cluster"
    depends_on        = [app.strimzi-operator, app.storage-classes]
    expected_duration = "7m"
    custom_resources  = ["kafka.strimzi.io/Kafka", "kafka.strimzi.io/KafkaNodePool"]
    source {
      path = "apps/kafka"
    }
    teardown {
      volumes = "snapshot"
    }
  }
}

# Layer 6: developer platform.
stack "developer-platform" {
  description = "Registry, portal, pipelines and virtual machines"

  app "harbor" {
    namespace = "harbor"
    # platc:ignore redundant-dependency -- the registry's own volumes need storage classes, whatever postgres uses
    depends_on        = [app.postgres-clusters, app.redis-clusters, app.storage-classes, app.ingress-nginx]
    expected_duration = "8m"
    timeouts {
      sync   = "10m"
      health = "15m"
    }
    source {
      chart    = "harbor"
      repo_url = "https://helm.goharbor.io"
      version  = "1.15.1"
      helm {
        values = {
          externalURL = "https://registry.${env.domain}"
          database    = { type = "external" }
        }
      }
    }

    hook "migrate" {
      phase    = "PreSync"
      purpose  = "migration"
      manifest = "apps/harbor/migrate-job.yaml"
    }
  }

  app "backstage" {
    namespace         = "backstage"
    depends_on        = [app.postgres-clusters, app.ingress-nginx]
    expected_duration = "5m"
    source {
      chart    = "backstage"
      repo_url = "https://backstage.github.io/charts"
      version  = "2.1.0"
      helm {
        values = {
          ingress = { host = "portal.${env.domain}" }
        }
      }
    }
  }

  app "tekton" {
    namespace         = "tekton-pipelines"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "3m"
    source {
      path = "apps/tekton"
    }
  }

  app "kubevirt-operator" {
    namespace         = "kubevirt"
    class             = "operator"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "3m"
    source {
      path = "apps/kubevirt-operator"
    }
  }

  app "kubevirt" {
    namespace         = "kubevirt"
    depends_on        = [app.kubevirt-operator, app.storage-classes]
    expected_duration = "6m"
    custom_resources  = ["kubevirt.io/KubeVirt"]
    timeouts {
      sync   = "10m"
      health = "15m"
    }
    source {
      path = "apps/kubevirt"
    }
  }
}

# Layer 7: development workloads and application infrastructure.
stack "development-workloads" {
  description = "Progressive delivery and promotion"

  app "argo-rollouts" {
    namespace         = "argo-rollouts"
    depends_on        = [app.metallb, app.cert-manager, app.sealed-secrets]
    expected_duration = "2m"
    source {
      chart    = "argo-rollouts"
      repo_url = "https://argoproj.github.io/argo-helm"
      version  = "2.37.7"
    }
  }

  # Kargo needs Argo CD, which the bootstrap installed before this DAG runs.
  app "kargo" {
    namespace         = "kargo"
    depends_on        = [app.cert-manager, app.ingress-nginx]
    expected_duration = "4m"
    source {
      path = "apps/kargo"
      helm {
        values = {
          api = { host = "kargo.${env.domain}" }
        }
      }
    }
  }
}

stack "application-infrastructure" {
  description = "Durable execution for the platform's applications"

  app "temporal-operator" {
    namespace         = "temporal-system"
    class             = "operator"
    depends_on        = [app.cert-manager]
    expected_duration = "2m"
    source {
      path = "apps/temporal-operator"
    }
  }

  app "temporal" {
    namespace         = "temporal"
    depends_on        = [app.temporal-operator, app.postgres-clusters, app.ingress-nginx]
    expected_duration = "5m"
    custom_resources  = ["temporal.io/TemporalCluster"]
    timeouts {
      sync   = "10m"
      health = "10m"
    }
    source {
      path = "apps/temporal"
      helm {
        values = {
          ui = { host = "temporal.${env.domain}" }
        }
      }
    }
  }
}

# Backups of volumes and cluster state.
stack "backup" {
  description = "Volume snapshots and Velero backups"
  depends_on  = [app.storage-classes]

  app "snapshot-controller" {
    namespace         = "kube-system"
    expected_duration = "2m"
    source {
      chart    = "snapshot-controller"
      repo_url = "https://piraeus.io/helm-charts/"
      version  = "3.0.6"
    }
  }

  app "velero" {
    namespace         = "velero"
    depends_on        = [app.snapshot-controller, app.object-buckets]
    expected_duration = "3m"
    custom_resources  = ["velero.io/BackupStorageLocation"]
    source {
      chart    = "velero"
      repo_url = "https://vmware-tanzu.github.io/helm-charts"
      version  = "7.2.1"
      helm {
        values = {
          configuration = {
            backupStorageLocation = [{ name = "ceph", provider = "aws", bucket = "velero" }]
          }
        }
      }
    }
  }
}
