# A small platform for the e2e scenarios that fail, resume, scope and
# tear down: short timeouts and retries, so a failing app fails in
# seconds; two stacks and two independent chains; one custom resource
# kind with the platform's own health rule; apps that keep data under
# each volume policy; chart sources and Git path sources; one resource
# node (RFC 5.1): api waits for database's Database object itself.
#
#   stack base:      network → database (example.com/Database, snapshot)
#   stack services:  api (delete) → web          (depends on stack base;
#                    api also on app.database.resource.primary)
#   outside stacks:  cache (retain) → metrics (retain)   (independent)

platform "shop" {
  argocd {
    namespace = "argocd"
    project   = "shop"
  }
  workflows {
    namespace       = "argo"
    service_account = "shop-orchestrator"
    parallelism     = 4
  }
  git {
    repo_url = "https://git.shop.test/platform.git"
    revision = "v1.0.0"
  }
}

environment "test" {
  domain = "shop.test"
}

defaults {
  timeouts {
    sync   = "1m"
    health = "20s"
  }
  retry {
    limit       = 1
    backoff     = "2s"
    factor      = 1
    max_backoff = "2s"
  }
}

stack "base" {
  app "network" {
    namespace         = "network"
    expected_duration = "30s"
    source {
      chart    = "network"
      repo_url = "https://charts.shop.test/stable"
      version  = "1.0.0"
    }
  }

  app "database" {
    namespace         = "database"
    depends_on        = [app.network]
    expected_duration = "1m"
    custom_resources  = ["example.com/Database"]
    source {
      path = "apps/database"
    }
    teardown {
      volumes = "snapshot"
    }
    # The simulated operator's Database is named after its app, in the
    # app's namespace (e2e/content.go).
    resource "primary" {
      kind      = "example.com/Database"
      name      = "database"
      namespace = "database"
    }
  }
}

stack "services" {
  depends_on = [stack.base]

  app "api" {
    namespace         = "api"
    depends_on        = [app.database.resource.primary]
    expected_duration = "30s"
    source {
      chart    = "api"
      repo_url = "https://charts.shop.test/stable"
      version  = "2.1.0"
      helm {
        values = { host = "api.${env.domain}" }
      }
    }
    teardown {
      volumes = "delete"
    }
  }

  app "web" {
    namespace         = "web"
    depends_on        = [app.api]
    expected_duration = "30s"
    source {
      path = "apps/web"
      helm {
        values = { host = "www.${env.domain}" }
      }
    }
    sync {
      automated = true
      self_heal = true
    }
  }
}

app "cache" {
  namespace         = "cache"
  expected_duration = "30s"
  source {
    chart    = "cache"
    repo_url = "https://charts.shop.test/stable"
    version  = "0.3.0"
  }
  teardown {
    volumes = "retain"
  }
}

app "metrics" {
  namespace         = "metrics"
  depends_on        = [app.cache]
  expected_duration = "30s"
  source {
    chart    = "metrics"
    repo_url = "https://charts.shop.test/stable"
    version  = "4.2.0"
  }
  teardown {
    volumes = "retain"
  }
}

health "example.com/Database" {
  healthy  = obj.status.phase == "Running" && obj.status.readyReplicas == obj.spec.replicas
  degraded = obj.status.phase == "Failed"
  message  = coalesce(obj.status.message, "waiting for the database")

  test "running" {
    object       = "testdata/database-running.yaml"
    want         = "Healthy"
    want_message = "3 of 3 replicas ready"
  }
  test "failed" {
    object       = "testdata/database-failed.yaml"
    want         = "Degraded"
    want_message = "replica 2 cannot join: WAL diverged"
  }
}
