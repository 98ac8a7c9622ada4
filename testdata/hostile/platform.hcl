# The hostile-input corpus's platform (internal/hostile). Every string
# written as «id:value» is a field: the test builds the platform with
# each payload of payloads.txt appended to one field's value, and checks
# that platc refuses it at that field or emits it only as inert data.
platform "«platform.name:acme»" {
  argocd {
    namespace = "«argocd.namespace:argocd»"
    project   = "«argocd.project:platform»"
    server    = "«argocd.server:argocd-server.argocd.svc:443»"
    version   = "«argocd.version:v3.5.1»"
    token_secret {
      name = "«argocd.token_secret.name:platc-argocd-token»"
      key  = "«argocd.token_secret.key:token»"
    }
  }
  workflows {
    namespace       = "«workflows.namespace:argo»"
    service_account = "«workflows.service_account:platform-orchestrator»"
    image           = "«workflows.image:quay.io/argoproj/argocd:v3.5.1»"
  }
  git {
    repo_url = "«git.repo_url:https://git.example.com/platform.git»"
    revision = "«git.revision:v1.4.0»"
    path     = "«git.path:generated»"
  }
  bootstrap {
    argocd_chart         = "«bootstrap.argocd_chart:7.7.0»"
    workflows_chart      = "«bootstrap.workflows_chart:0.45.0»"
    events_chart         = "«bootstrap.events_chart:2.4.9»"
    sealed_secrets_chart = "«bootstrap.sealed_secrets_chart:2.16.2»"
    argocd_apps_chart    = "«bootstrap.argocd_apps_chart:2.0.2»"
    argo_repo            = "«bootstrap.argo_repo:https://argoproj.github.io/argo-helm»"
    sealed_secrets_repo  = "«bootstrap.sealed_secrets_repo:https://bitnami-labs.github.io/sealed-secrets»"
  }
}

environment "«environment.name:production»" {
  domain       = "«env.domain:prod.example.com»"
  cluster_name = "«env.cluster_name:prod-1»"
}

class "«class.name:slow»" {
  description = "«class.description:Slow apps»"
  timeouts {
    sync = "«class.timeouts.sync:20m»"
  }
}

stack "«stack.name:data»" {
  description = "«stack.description:Databases and their operators»"

  app "«app.name:db»" {
    namespace   = "«app.namespace:db»"
    project     = "«app.project:data»"
    application = "«app.application:data-db»"
    class       = "«app.class:slow»"
    custom_resources = ["«app.custom_resources:example.com/Widget»"]
    source {
      chart    = "«source.chart:postgres»"
      repo_url = "«source.repo_url:https://charts.example.com»"
      version  = "«source.version:1.2.3»"
      helm {
        release_name = "«helm.release_name:db»"
        value_files  = ["«helm.value_files:values-prod.yaml»"]
        values = {
          greeting = "«values.string:hello»"
          "«values.key:note»" = "x"
          host     = "db.${env.domain}"
          nested   = { list = ["«values.list:item»"] }
        }
      }
    }
    sync {
      automated = true
      options   = ["«sync.options:CreateNamespace=true»"]
    }
    hook "«hook.name:migrate»" {
      phase    = "PreSync"
      purpose  = "migration"
      manifest = "«hook.manifest:apps/db/migrate.yaml»"
    }
  }
}

app "web" {
  namespace  = "web"
  depends_on = [app.db]
  source {
    path            = "«source.path:apps/web»"
    repo_url        = "«git_source.repo_url:https://git.example.com/apps.git»"
    target_revision = "«source.target_revision:v2.0.0»"
  }
}

health "«health.kind:example.com/Widget»" {
  healthy  = obj.status.phase == "Ready"
  degraded = obj.status.phase == "Failed"
  message  = "«health.message:widget is ready»"

  test "«test.name:ready»" {
    object = "«test.object:testdata/widget.yaml»"
    want   = "Healthy"
  }
}

events {
  type       = "github"
  namespace  = "«events.namespace:argo-events»"
  endpoint   = "«events.endpoint:/push»"
  branch     = "«events.branch:main»"
  repository = "«events.repository:acme/platform»"
  url        = "«events.url:https://events.example.com»"
  secret {
    name = "«events.secret.name:github-webhook»"
    key  = "«events.secret.key:secret»"
  }
}
