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

# The Application vocabulary of issue 22.
app "parity" {
  namespace   = "parity"
  depends_on  = [app.web]
  annotations = { "«annotations.key:example.com/owner»" = "«annotations.value:team a»" }
  labels      = { "«labels.key:example.com/team»" = "«labels.value:a»" }
  info        = { "«info.name:Owner»" = "«info.value:team a»" }
  finalizer   = "«app.finalizer:background»"
  source {
    chart    = "parity"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm {
      value_files  = ["«helm.ref_value_file:$values/parity.yaml»"]
      api_versions = ["«helm.api_versions:monitoring.coreos.com/v1»"]
      kube_version = "«helm.kube_version:1.31.0»"
      parameter {
        name  = "«helm.parameter.name:image.tag»"
        value = "«helm.parameter.value:1.0.0»"
      }
      file_parameter {
        name = "«helm.file_parameter.name:config»"
        path = "«helm.file_parameter.path:files/config.yaml»"
      }
    }
  }
  source {
    ref             = "«source.ref:values»"
    repo_url        = "https://git.example.com/values.git"
    target_revision = "v1.0.0"
  }
  ignore_differences {
    group                   = "«ignore.group:apps»"
    kind                    = "«ignore.kind:Deployment»"
    name                    = "«ignore.name:web»"
    json_pointers           = ["«ignore.json_pointers:/spec/replicas»"]
    jq_path_expressions     = ["«ignore.jq_path_expressions:.spec.replicas»"]
    managed_fields_managers = ["«ignore.managed_fields_managers:kube-controller-manager»"]
  }
  sync {
    retry {
      limit   = 3
      backoff = "«sync.retry.backoff:5s»"
    }
    managed_namespace_metadata {
      labels      = { "«namespace_metadata.label_key:team»" = "«namespace_metadata.label_value:a»" }
      annotations = { team = "«namespace_metadata.annotation:team a»" }
    }
  }
}

app "parity-kustomize" {
  namespace = "parity-kustomize"
  source {
    path = "apps/parity/overlays/prod"
    kustomize {
      images             = ["«kustomize.images:web=registry.example.com/web:1.0»"]
      name_prefix        = "«kustomize.name_prefix:prod-»"
      common_labels      = { tier = "«kustomize.common_labels:web»" }
      common_annotations = { owner = "«kustomize.common_annotations:team a»" }
      namespace          = "«kustomize.namespace:web»"
      components         = ["«kustomize.components:../../components/x»"]
      patch {
        patch = "«kustomize.patch:- op: replace\n  path: /spec/replicas\n  value: 2»"
        target {
          kind           = "«kustomize.target.kind:Deployment»"
          label_selector = "«kustomize.target.label_selector:app=web»"
        }
      }
    }
  }
}

app "parity-directory" {
  namespace = "parity-directory"
  source {
    path = "apps/parity/manifests"
    directory {
      include = "«directory.include:*.yaml»"
      exclude = "«directory.exclude:tests/*»"
      jsonnet {
        ext_vars = { cluster = "«jsonnet.ext_vars:prod-1»" }
        libs     = ["«jsonnet.libs:vendor»"]
      }
    }
  }
}

app "parity-plugin" {
  namespace = "parity-plugin"
  source {
    path = "apps/parity/plugin"
    plugin {
      name       = "«plugin.name:sops-v1.0»"
      env        = { REGION = "«plugin.env:eu-west-1»" }
      parameters = { environment = "«plugin.parameters:production»" }
    }
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
